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

const PARAM = /\{(\w+):(\w+)\}/g;

/**
 * Fills ClickHouse query-parameter placeholders (`{name:Type}`, the syntax current servers bind
 * natively) with quoted literals, for servers without query parameters (18.16). Only String,
 * Date and DateTime are accepted; a Date or DateTime value must look like one, and a placeholder
 * without a value is an error rather than SQL with a hole in it.
 */
export function bindParams(sql: string, params: Record<string, string>): string {
  return sql.replace(PARAM, (_, name: string, type: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for query parameter ${name}`);
    switch (type) {
      case 'String':
        return quote(value);
      case 'Date':
        if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new Error(`${name}: expected YYYY-MM-DD`);
        return `toDate(${quote(value)})`;
      case 'DateTime':
        if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value))
          throw new Error(`${name}: expected YYYY-MM-DD hh:mm:ss`);
        return `toDateTime(${quote(value)})`;
      default:
        throw new Error(`query parameter ${name}: type ${type} is not supported here`);
    }
  });
}
