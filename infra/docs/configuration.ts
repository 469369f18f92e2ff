/**
 * `npm run docs:config` writes docs/configuration.md from the zod schemas that parse the
 * environment (shared/config.ts for every service, shared/portal/config.ts for the portal), so the
 * page cannot drift from what the services accept: configuration.test.ts fails when it is stale.
 *
 * Names, types, bounds and defaults come from the schemas (zod's JSON Schema export, input side);
 * a variable's description is its schema description (`.describe()`/`.meta()`) if it has one, else
 * the doc comment above it in the schema's source file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { z } from 'zod';
import { FEEDS } from '../../shared/capabilities/registry.ts';
import { envSchema } from '../../shared/config.ts';
import { portalSchema } from '../../shared/portal/config.ts';

export const CONFIGURATION_DOC_FILE = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));

interface Section {
  title: string;
  intro: string;
  schema: z.ZodObject;
  /** The source file and the name of the `z.object(...)` the doc comments are read from. */
  source: string;
  variable: string;
}

const SECTIONS: Section[] = [
  {
    title: 'Every service',
    intro:
      'Read by the API nodes, the audit sink, the refresher, the portal and the admin CLI (`shared/config.ts`).',
    schema: envSchema,
    source: '../../shared/config.ts',
    variable: 'envSchema',
  },
  {
    title: 'The portal',
    intro: 'Read by the portal on top of the variables above (`shared/portal/config.ts`).',
    schema: portalSchema,
    source: '../../shared/portal/config.ts',
    variable: 'portalSchema',
  },
];

interface JsonProperty {
  type?: string;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  description?: string;
}

/** The doc comment of each property of `const <variable> = z.object({...})` in a source file. */
export function docComments(sourceText: string, variable: string): Map<string, string> {
  const file = ts.createSourceFile('config.ts', sourceText, ts.ScriptTarget.Latest, true);
  const out = new Map<string, string>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && node.name.getText(file) === variable && node.initializer) {
      const literal = findObjectLiteral(node.initializer);
      for (const prop of literal?.properties ?? []) {
        if (!ts.isPropertyAssignment(prop)) continue;
        const text = jsDocText(prop, sourceText);
        if (text) out.set(prop.name.getText(file), text);
      }
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

function findObjectLiteral(node: ts.Node): ts.ObjectLiteralExpression | undefined {
  if (ts.isObjectLiteralExpression(node)) return node;
  return ts.forEachChild(node, findObjectLiteral);
}

/** A property's `/** ... *\/` comment as one line of prose. */
function jsDocText(prop: ts.Node, sourceText: string): string | undefined {
  const ranges = ts.getLeadingCommentRanges(sourceText, prop.getFullStart()) ?? [];
  const doc = ranges
    .map((r) => sourceText.slice(r.pos, r.end))
    .filter((c) => c.startsWith('/**'))
    .at(-1);
  if (!doc) return undefined;
  return doc
    .replace(/^\/\*\*|\*\/$/g, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, '').trim())
    .filter((line) => line !== '')
    .join(' ');
}

function typeOf(p: JsonProperty): string {
  if (p.enum) return p.enum.map((v) => `\`${String(v)}\``).join(' | ');
  const bounds: string[] = [];
  if (p.minimum !== undefined) bounds.push(`≥ ${p.minimum}`);
  if (p.maximum !== undefined) bounds.push(`≤ ${p.maximum}`);
  if (p.minLength !== undefined && p.minLength > 1) bounds.push(`≥ ${p.minLength} chars`);
  if (p.maxLength !== undefined) bounds.push(`≤ ${p.maxLength} chars`);
  const base = p.format === 'uri' ? 'URL' : (p.type ?? 'string');
  return bounds.length > 0 ? `${base} (${bounds.join(', ')})` : base;
}

function defaultOf(p: JsonProperty): string {
  if (p.default === undefined || p.default === '') return 'unset';
  return `\`${String(p.default)}\``;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The table of one schema: a row per variable, in the schema's order. Throws on an undocumented variable. */
export function renderSection(section: Section): string {
  const json = z.toJSONSchema(section.schema, { io: 'input', unrepresentable: 'any' }) as {
    properties: Record<string, JsonProperty>;
  };
  const comments = docComments(
    readFileSync(fileURLToPath(new URL(section.source, import.meta.url)), 'utf8'),
    section.variable,
  );
  const rows = Object.entries(json.properties).map(([name, p]) => {
    const description = p.description ?? comments.get(name);
    if (!description) throw new Error(`${name} (${section.variable}) has no description: add a doc comment`);
    return `| \`${name}\` | ${cell(typeOf(p))} | ${cell(defaultOf(p))} | ${cell(description)} |`;
  });
  return [
    `## ${section.title}`,
    '',
    section.intro,
    '',
    '| variable | type | default | meaning |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/**
 * The `FEED_*` variables: one per source a capability declares (shared/capabilities/<name>/), so
 * this table is read from the declarations, as the config schema itself is.
 */
export function renderFeeds(): string {
  const every = (s: number) =>
    s % 86_400 === 0 ? `${s / 86_400} d` : s % 3600 === 0 ? `${s / 3600} h` : `${s} s`;
  const rows = Object.values(FEEDS).map((f) => {
    const seed = 'file' in f.seed ? `\`infra/feeds/${f.seed.file}\`` : 'the installed npm data package';
    const fallback = f.optional ? 'not read' : seed;
    const publishers = f.publishers.length > 0 ? f.publishers.map((u) => `<${u}>`).join(' ') : 'none';
    return `| \`${f.env}\` | ${cell(f.description)} | ${cell(fallback)} | ${cell(publishers)} | ${every(f.refreshEveryS)} |`;
  });
  return [
    '## Feed locations',
    '',
    'Each capability declares its sources (`shared/capabilities/<name>/index.ts`); each source is read',
    "from its `FEED_*` variable: a file path, an http(s) URL in the project's own format, or the",
    "publishers' own files, comma-separated, which the refresher fetches on the source's schedule",
    'with conditional requests. `docker-compose.yml` sets them to the publishers; unset, the',
    'checked-in seed is read and nothing is fetched.',
    '',
    '| variable | what it holds | when unset | publishers | fetched every |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

const LOCAL_STACK = `## The local stack scripts

\`infra/local/*.sh\` (and so \`npm start\` and \`npm test\`) read \`FRS_STACK_DIR\` (default \`.stack/\`),
\`FRS_REDIS_PORT\` (6379), \`FRS_REDIS_CACHE_PORT\` (6380), \`FRS_KAFKA_PORT\` (9092),
\`FRS_KAFKA_CONTROLLER_PORT\` (9093), \`FRS_CLICKHOUSE_HTTP_PORT\` (8123) and
\`FRS_CLICKHOUSE_TCP_PORT\` (9000), to run a second, private stack beside the first. The durable
Redis gets \`maxmemory\` \`FRS_REDIS_MAXMEMORY\` (default \`2gb\`, \`noeviction\`), the explain cache
\`FRS_REDIS_CACHE_MAXMEMORY\` (\`1gb\`, \`volatile-ttl\`). \`FRS_SKIP_STACK=1\` makes the tests and
benchmarks use servers that are already running instead of starting them.`;

export function renderConfigurationDoc(): string {
  return [
    '<!-- Generated by `npm run docs:config` from the zod schemas of the environment. Do not edit. -->',
    '',
    '# Configuration',
    '',
    'Every service reads its settings from environment variables, parsed once at boot; a bad value',
    'stops the process with a message naming the variable. "unset" means the variable is optional',
    'and the behaviour without it is the one described.',
    '',
    ...SECTIONS.map((s) => renderSection(s) + '\n'),
    renderFeeds() + '\n',
    LOCAL_STACK,
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(CONFIGURATION_DOC_FILE, renderConfigurationDoc());
  console.log(`wrote ${CONFIGURATION_DOC_FILE}`);
}
