/**
 * Renders the served OpenAPI document as Markdown: docs/api.md, the API reference a reader of
 * the repository (or of GitHub) can browse without running the service. Everything comes from
 * the document itself, so the reference cannot say what the API does not serve.
 * `npm run docs:api` writes it; api-reference.test.ts fails when the checked-in copy is stale.
 */
import { parse } from 'yaml';
import { openApiYaml } from './document.ts';

type Json = Record<string, unknown>;
type Schema = Json & {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  anyOf?: Schema[];
  enum?: unknown[];
};

interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema: Schema }[];
  requestBody?: {
    content: Record<string, { schema: Schema; examples?: Record<string, { value: unknown }> }>;
  };
  responses: Record<string, Json>;
}

interface Doc {
  info: { title: string; version: string; summary?: string; description?: string; license: { name: string } };
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Schema>;
    headers: Record<string, { description: string; schema: Schema }>;
    responses: Record<string, Json>;
    securitySchemes: Record<string, { description?: string }>;
  };
  [ext: `x-${string}`]: unknown;
}

const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);
const anchor = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
const schemaLink = (name: string) => `[${name}](#${anchor(name)})`;
/** Markdown table cells: no raw pipes or line breaks. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (v: unknown) => `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``;

/** A short type expression for a schema: `string`, `array of Component`, `"a" \| "b"`. */
function typeOf(s: Schema): string {
  if (s.$ref) return schemaLink(refName(s.$ref));
  if (s.const !== undefined) return code(s.const);
  if (s.enum) return s.enum.map(code).join(', ');
  if (s.type === 'array' && s.items) return `array of ${typeOf(s.items)}`;
  if (s.type === 'object' && !s.properties && typeof s.additionalProperties === 'object') {
    const value = s.additionalProperties;
    return Object.keys(value).length === 0 ? 'object' : `map of ${typeOf(value)}`;
  }
  return s.type ?? 'any';
}

/** The rules of a schema beyond its type, in words. */
function rules(s: Schema): string[] {
  const out: string[] = [];
  const say = (key: string, words: string) => {
    if (s[key] !== undefined) out.push(`${words} ${code(s[key])}`);
  };
  say('minimum', 'min');
  say('maximum', 'max');
  say('minLength', 'min length');
  say('maxLength', 'max length');
  say('minItems', 'min items');
  say('maxItems', 'max items');
  say('minProperties', 'min properties');
  say('pattern', 'pattern');
  say('format', 'format');
  say('default', 'default');
  if (s.anyOf)
    out.push(`one of: ${s.anyOf.map((a) => (a.format ? `format ${code(a.format)}` : typeOf(a))).join(', ')}`);
  if (s.type === 'array' && s.items) out.push(...rules(s.items).map((r) => `items: ${r}`));
  return out;
}

/** A description followed by the rules: "Echoed in the response. Max length `256`." */
function notes(description: unknown, ruleList: string[]): string {
  const text = typeof description === 'string' ? description : '';
  if (ruleList.length === 0) return text;
  const joined = ruleList.join(', ');
  return `${text}${text ? ' ' : ''}${joined[0]!.toUpperCase()}${joined.slice(1)}.`;
}

/** One table row per property, nested objects flattened to dotted paths. */
function propertyRows(s: Schema, prefix = ''): string[] {
  const rows: string[] = [];
  const required = new Set(s.required ?? []);
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    const path = `${prefix}${name}`;
    const text = notes(prop.description, rules(prop));
    rows.push(
      `| \`${path}\` | ${cell(typeOf(prop))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(text)} |`,
    );
    if (prop.properties) rows.push(...propertyRows(prop, `${path}.`));
    if (prop.type === 'array' && prop.items?.properties) rows.push(...propertyRows(prop.items, `${path}[].`));
  }
  return rows;
}

function schemaSection(name: string, s: Schema): string[] {
  const out = [`### ${name}`, ''];
  if (typeof s.description === 'string') out.push(s.description, '');
  if (s.properties) {
    out.push('| field | type | required | rules |', '|---|---|---|---|', ...propertyRows(s), '');
    if (s.additionalProperties === false) out.push('Other fields: not allowed.', '');
  } else out.push(`Type: ${typeOf(s)}.`, '');
  return out;
}

function responseRow(doc: Doc, status: string, response: Json): string {
  const resolved = (
    typeof response.$ref === 'string' ? doc.components.responses[refName(response.$ref)] : response
  ) as { description?: string; headers?: Record<string, Json>; content?: Record<string, { schema: Schema }> };
  const body = Object.entries(resolved.content ?? {})
    .map(([type, c]) => `${typeOf(c.schema)} (\`${type}\`)`)
    .join(', ');
  const headers = Object.keys(resolved.headers ?? {})
    .map((h) => `\`${h}\``)
    .join(', ');
  return `| ${status} | ${cell(resolved.description ?? '')} | ${cell(body || '—')} | ${cell(headers || '—')} |`;
}

function operationSection(doc: Doc, method: string, path: string, op: Operation): string[] {
  const out = [`### ${method.toUpperCase()} ${path}`, ''];
  const auth = op.security?.length === 0 ? 'public' : 'bearer API key';
  out.push(`Operation \`${op.operationId}\` · ${auth}${op.summary ? ` · ${op.summary}` : ''}`, '');
  if (op.description) out.push(op.description, '');
  if (op.parameters?.length) {
    out.push('| parameter | in | required | type | rules |', '|---|---|---|---|---|');
    for (const p of op.parameters) {
      const text = notes(p.description, rules(p.schema));
      out.push(
        `| \`${p.name}\` | ${p.in} | ${p.required ? 'yes' : 'no'} | ${cell(typeOf(p.schema))} | ${cell(text)} |`,
      );
    }
    out.push('');
  }
  for (const [type, body] of Object.entries(op.requestBody?.content ?? {})) {
    out.push(`Request body (\`${type}\`): ${typeOf(body.schema)}.`, '');
    for (const [name, ex] of Object.entries(body.examples ?? {})) {
      out.push(`Example \`${name}\`:`, '', '```json', JSON.stringify(ex.value, null, 2), '```', '');
    }
  }
  out.push('| status | meaning | body | headers |', '|---|---|---|---|');
  for (const [status, response] of Object.entries(op.responses)) out.push(responseRow(doc, status, response));
  out.push('');
  return out;
}

export function renderApiReference(yamlText: string = openApiYaml()): string {
  const doc = parse(yamlText) as Doc;
  const out: string[] = [
    `# ${doc.info.title} ${doc.info.version}`,
    '',
    '<!-- Generated by `npm run docs:api` from the document served at GET /v1/openapi.yaml. Do not edit. -->',
    '',
  ];
  if (doc.info.summary) out.push(doc.info.summary, '');
  if (doc.info.description) out.push(doc.info.description, '');
  out.push(
    `Licence: ${doc.info.license.name}. The rules behind these schemas, in words: [contract.md](contract.md).`,
    '',
  );
  out.push('## Authentication', '');
  for (const [name, scheme] of Object.entries(doc.components.securitySchemes)) {
    out.push(`\`${name}\`: ${scheme.description ?? ''}`, '');
  }

  out.push('## Operations', '');
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) out.push(...operationSection(doc, method, path, op));
  }

  out.push('## Headers', '', '| header | type | meaning |', '|---|---|---|');
  for (const [name, h] of Object.entries(doc.components.headers)) {
    out.push(`| \`${name}\` | ${cell(typeOf(h.schema))} | ${cell(h.description)} |`);
  }
  out.push('');

  out.push('## Schemas', '');
  for (const [name, s] of Object.entries(doc.components.schemas)) out.push(...schemaSection(name, s));

  out.push('## Registries', '', '### Error codes', '', '| code | status | meaning |', '|---|---|---|');
  const errors = doc['x-error-codes'] as Record<string, { status: number; meaning: string }>;
  for (const [c, e] of Object.entries(errors)) out.push(`| \`${c}\` | ${e.status} | ${cell(e.meaning)} |`);
  out.push('');
  const registry = (title: string, key: `x-${string}`) => {
    out.push(`### ${title}`, '', '| key | meaning |', '|---|---|');
    for (const [k, v] of Object.entries(doc[key] as Record<string, string>))
      out.push(`| \`${k}\` | ${cell(v)} |`);
    out.push('');
  };
  registry('Component keys', 'x-component-keys');
  registry('Reason codes', 'x-reason-codes');
  registry('Benign exclusions', 'x-benign-exclusions');
  out.push('### Score versions', '', '| version | status | default |', '|---|---|---|');
  for (const v of doc['x-score-versions'] as { id: string; status: string; default: boolean }[]) {
    out.push(`| \`${v.id}\` | ${v.status} | ${v.default ? 'yes' : ''} |`);
  }
  out.push('');
  return out.join('\n');
}
