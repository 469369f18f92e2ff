/**
 * The one place that puts values into ClickHouse SQL text. ClickHouse 18.16 has no query
 * parameters, so values are quoted here; ids are also checked against their exact pattern by
 * callers before they get this far.
 */
export function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

export function quoteIdent(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`bad identifier ${JSON.stringify(name)}`);
  return name;
}
