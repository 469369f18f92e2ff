/**
 * `admin list show|add|remove|import|export`: an organisation's allow/deny lists
 * (shared/orgs/lists-store.ts), as the API and the portal manage them, with the operator as the
 * actor (`operator:<name>`). Every API node serves a change within seconds; every change is
 * audited in ClickHouse `list_changes`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { listCsv, parseListCsv } from '../../shared/capabilities/org-lists/csv.ts';
import { ListEntryError, listEntryId, parseListEntry } from '../../shared/capabilities/org-lists/entry.ts';
import {
  LIST_EFFECTS,
  LIST_ENTRY_KINDS,
  type ListEntry,
  type ListEntryKind,
} from '../../shared/capabilities/org-lists/types.ts';
import type { OrgListStore } from '../../shared/orgs/lists-store.ts';

export const LIST_USAGE = `  admin list show --org ORG_ID [--kind KIND] [--effect allow|deny]
  admin list add --org ORG_ID --kind KIND --value V --effect allow|deny --reason TEXT
                 [--expires-at ISO_TIME] --operator NAME
                 (KIND: ${LIST_ENTRY_KINDS.join(', ')}; the same kind and value again replaces it)
  admin list remove --org ORG_ID --kind KIND --value V --operator NAME
  admin list import --org ORG_ID --file LIST.csv --operator NAME
                 (replaces the whole list; one bad line refuses the file, naming the first 100)
  admin list export --org ORG_ID [--out LIST.csv]   (CSV on stdout, or written to --out)`;

export interface ListArgs {
  org?: string | undefined;
  kind?: string | undefined;
  value?: string | undefined;
  effect?: string | undefined;
  reason?: string | undefined;
  'expires-at'?: string | undefined;
  operator?: string | undefined;
  file?: string | undefined;
  out?: string | undefined;
}

/** What `export` prints as it is, instead of the one JSON line of every other command. */
export class RawOutput {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** A CSV that was refused whole: its message names the bad lines (printed without the usage). */
export class ListImportRefused extends Error {}

/** A refusal of the command as typed: printed with the usage. */
export class ListArgError extends Error {}

export async function listCommand(store: OrgListStore, verb: string, orgId: string, args: ListArgs) {
  switch (verb) {
    case 'show':
      return show(store, orgId, args);
    case 'add':
      return add(store, orgId, args);
    case 'remove':
      return remove(store, orgId, args);
    case 'import':
      return importCsv(store, orgId, args);
    default:
      return exportCsv(store, orgId, args);
  }
}

async function show(store: OrgListStore, orgId: string, args: ListArgs) {
  const kind = args.kind === undefined ? undefined : oneOf(args.kind, 'kind', LIST_ENTRY_KINDS);
  const effect = args.effect === undefined ? undefined : oneOf(args.effect, 'effect', LIST_EFFECTS);
  const entries = (await store.list(orgId)).filter(
    (e) => (kind === undefined || e.kind === kind) && (effect === undefined || e.effect === effect),
  );
  return { org_id: orgId, version: await store.version(orgId), count: entries.length, entries };
}

async function add(store: OrgListStore, orgId: string, args: ListArgs) {
  const entry = parseListEntry(
    {
      kind: need(args.kind, 'kind'),
      value: need(args.value, 'value'),
      effect: need(args.effect, 'effect'),
      reason: need(args.reason, 'reason'),
      expires_at: args['expires-at'],
    },
    new Date(),
  );
  const { version } = await store.add(orgId, [entry], actor(args));
  return { org_id: orgId, added: entry, version };
}

async function remove(store: OrgListStore, orgId: string, args: ListArgs) {
  const kind = oneOf(need(args.kind, 'kind'), 'kind', LIST_ENTRY_KINDS);
  const value = canonicalValue(kind, need(args.value, 'value'));
  const id = listEntryId({ kind, value });
  const { removed, version } = await store.remove(orgId, [id], actor(args));
  if (removed === 0) throw new ListArgError(`no ${kind} entry ${value} in ${orgId}`);
  return { org_id: orgId, removed: { kind, value }, version };
}

async function importCsv(store: OrgListStore, orgId: string, args: ListArgs) {
  const operator = actor(args);
  const file = need(args.file, 'file');
  const parsed = parseListCsv(await readFile(file, 'utf8'), new Date());
  if (!parsed.ok) {
    const lines = parsed.errors.map((e) => `  line ${e.line}: ${e.error}`);
    const more =
      parsed.count > parsed.errors.length ? `\n  ... and ${parsed.count - parsed.errors.length} more` : '';
    throw new ListImportRefused(
      `${file}: ${parsed.count} bad line${parsed.count === 1 ? '' : 's'}; nothing changed\n${lines.join('\n')}${more}`,
    );
  }
  const result = await store.replace(orgId, parsed.entries, operator);
  return { org_id: orgId, replaced: true, ...result };
}

async function exportCsv(store: OrgListStore, orgId: string, args: ListArgs) {
  const entries: ListEntry[] = await store.list(orgId);
  const csv = listCsv(entries);
  if (args.out === undefined) return new RawOutput(csv);
  await writeFile(args.out, csv);
  return { org_id: orgId, entries: entries.length, out: args.out };
}

/**
 * The value as stored, so `remove` finds it however it is typed (`AS64500` or `64500`, an IPv6
 * address in any spelling); as typed when it does not parse (an entry stored before a rule changed).
 */
function canonicalValue(kind: ListEntryKind, value: string): string {
  try {
    return parseListEntry({ kind, value, effect: 'deny', reason: 'remove' }, new Date()).value;
  } catch (err) {
    if (err instanceof ListEntryError) return value.trim();
    throw err;
  }
}

function actor(args: ListArgs): string {
  const name = need(args.operator, 'operator').trim();
  if (!/^[^\p{C}]{1,128}$/u.test(name)) throw new ListArgError('--operator: 1 to 128 printable characters');
  return `operator:${name}`;
}

function oneOf<T extends string>(value: string, flag: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value))
    throw new ListArgError(`--${flag} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function need(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new ListArgError(`missing --${flag}`);
  return value;
}
