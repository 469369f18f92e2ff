/**
 * An organisation's list as CSV (RFC 4180): what the portal and the admin CLI download, and what
 * they and `PUT /v1/lists` upload to replace the whole list. An upload is checked as a whole
 * before anything is written: one bad line refuses the file, so a list is never half applied.
 */
import { runInTurns, runNow, type Slices } from '../../sliced-work.ts';
import { ListEntryError, listEntryId, parseListEntry } from './entry.ts';
import { MAX_LIST_ENTRIES, type ListEntry, type ListEntryInput } from './types.ts';

export const LIST_CSV_COLUMNS = ['kind', 'value', 'effect', 'reason', 'expires_at'] as const;
/** Written by a download, ignored by an upload: so a download can be uploaded again as it is. */
export const LIST_CSV_EXTRA_COLUMNS = ['added_by', 'added_at'] as const;
/** How many bad lines a refusal names; `count` says how many there were in all. */
export const MAX_CSV_ERRORS = 100;

export type ListCsvResult =
  | { ok: true; entries: ListEntryInput[] }
  | { ok: false; errors: { line: number; error: string }[]; count: number };

interface CsvRecord {
  /** 1-based, the line the record starts on. */
  line: number;
  fields: string[];
  error?: string;
}

/** One quoted field from `pos` (at its opening quote): its text and where it ends. */
function quotedField(text: string, pos: number): { value: string; end: number } | undefined {
  let value = '';
  let from = pos + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return undefined;
    value += text.slice(from, quote);
    if (text[quote + 1] !== '"') return { value, end: quote + 1 };
    value += '"';
    from = quote + 2;
  }
}

function lineEnd(text: string, pos: number): number {
  const nl = text.indexOf('\n', pos);
  return nl < 0 ? text.length : nl;
}

/** The first comma in `text` from `from` up to `end`, or `end`: never a scan past the line. */
function commaBefore(text: string, from: number, end: number): number {
  for (let i = from; i < end; i++) if (text.charCodeAt(i) === 44) return i;
  return end;
}

/**
 * Reads the record at `pos`; `next` is where the following one starts. Each character is looked
 * at a bounded number of times: the line's end is found once (again only past a quoted newline)
 * and a comma is looked for within the line, so a hostile upload (no commas, or one line of a
 * million fields) costs time in proportion to its size, never its square.
 */
function readRecord(text: string, pos: number): { fields: string[]; next: number; error?: string } {
  const fields: string[] = [];
  let le = -1;
  const endOfLine = (p: number) => (le >= p ? le : (le = lineEnd(text, p)));
  for (;;) {
    if (text[pos] === '"') {
      const quoted = quotedField(text, pos);
      if (!quoted) return { fields, next: text.length, error: 'a quoted field is not closed' };
      fields.push(quoted.value);
      pos = quoted.end;
      if (text[pos] === '\r' && text[pos + 1] === '\n') pos++;
      if (pos < text.length && text[pos] !== ',' && text[pos] !== '\n') {
        const next = endOfLine(pos) + 1;
        return { fields, next, error: 'a closing quote must be followed by a comma or the end of the line' };
      }
    } else {
      const end = commaBefore(text, pos, endOfLine(pos));
      const field = text.slice(pos, end).replace(/\r$/, '');
      if (field.includes('"'))
        return { fields, next: endOfLine(pos) + 1, error: 'a quote in a field that is not quoted' };
      fields.push(field);
      pos = end;
    }
    if (pos >= text.length || text[pos] === '\n') return { fields, next: pos + 1 };
    pos++; // past the comma
  }
}

function* records(text: string): Generator<CsvRecord> {
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a spreadsheet's byte order mark
  let line = 1;
  while (pos < text.length) {
    const { fields, next, error } = readRecord(text, pos);
    const blank = !error && fields.length === 1 && fields[0] === '';
    if (!blank) yield { line, fields, ...(error ? { error } : {}) };
    for (let i = text.indexOf('\n', pos); i >= 0 && i < next; i = text.indexOf('\n', i + 1)) line++;
    pos = next;
  }
}

const HEADER = LIST_CSV_COLUMNS.join(',');
const HEADER_WITH_EXTRA = [...LIST_CSV_COLUMNS, ...LIST_CSV_EXTRA_COLUMNS].join(',');

/**
 * Spreadsheets run a cell that starts with `=`, `+`, `-` or `@` as a formula. A reason starting so
 * is written with a `'` before it (which they show as text), and that `'` is read back off.
 */
const FORMULA_START = /^['=+\-@]/;
const GUARDED = /^'['=+\-@]/;

/** One record as an entry, or why not. */
function entryOf(record: CsvRecord, width: number, now: Date): ListEntryInput | string {
  if (record.error) return record.error;
  if (record.fields.length !== width)
    return `expected ${width} fields (${HEADER}${width > 5 ? ',…' : ''}), found ${record.fields.length}`;
  const [kind, value, effect, reason, expires_at] = record.fields;
  const unguarded = GUARDED.test(reason!) ? reason!.slice(1) : reason;
  try {
    return parseListEntry({ kind, value, effect, reason: unguarded, expires_at }, now);
  } catch (err) {
    if (err instanceof ListEntryError) return err.message;
    throw err;
  }
}

/** Every line of `text` checked; the entries only when every one is good. */
export function parseListCsv(text: string, now: Date): ListCsvResult {
  return runNow(checking(text, now));
}

/**
 * parseListCsv's result, the lines checked in event-loop turns: for a server, where checking a
 * 100,000-line upload (0.5-1 s) in one go would hold up every other request on the process.
 */
export function parseListCsvCooperative(text: string, now: Date): Promise<ListCsvResult> {
  return runInTurns(checking(text, now));
}

/** Lines checked between two yields (shared/sliced-work.ts). */
const LINES_PER_STEP = 64;

function* checking(text: string, now: Date): Slices<ListCsvResult> {
  const errors: { line: number; error: string }[] = [];
  let count = 0;
  const bad = (line: number, error: string) => {
    count++;
    if (errors.length < MAX_CSV_ERRORS) errors.push({ line, error });
  };
  const all = records(text);
  const header = all.next();
  const head = header.done ? '' : header.value.fields.join(',');
  if (header.done || (head !== HEADER && head !== HEADER_WITH_EXTRA)) {
    bad(1, `the first line must be ${HEADER} (optionally followed by ,${LIST_CSV_EXTRA_COLUMNS.join(',')})`);
    return { ok: false, errors, count };
  }
  const width = header.value.fields.length;
  const entries: ListEntryInput[] = [];
  const seen = new Map<string, number>();
  let read = 0;
  for (const record of all) {
    if (++read % LINES_PER_STEP === 0) yield;
    const entry = entryOf(record, width, now);
    if (typeof entry === 'string') {
      bad(record.line, entry);
      continue;
    }
    const id = listEntryId(entry);
    const first = seen.get(id);
    if (first !== undefined) bad(record.line, `duplicate of line ${first}: one entry per kind and value`);
    else if (seen.size >= MAX_LIST_ENTRIES) bad(record.line, `more than ${MAX_LIST_ENTRIES} entries`);
    else {
      seen.set(id, record.line);
      entries.push(entry);
    }
  }
  return count > 0 ? { ok: false, errors, count } : { ok: true, entries };
}

function cell(value: string): string {
  return /[",\r\n]/.test(value) || value !== value.trim() ? `"${value.replaceAll('"', '""')}"` : value;
}

/** The entries as CSV, with who added each and when: parseListCsv reads it back unchanged. */
export function listCsv(entries: readonly ListEntry[]): string {
  const lines = [HEADER_WITH_EXTRA];
  for (const e of entries) {
    const reason = FORMULA_START.test(e.reason) ? `'${e.reason}` : e.reason;
    const row = [e.kind, e.value, e.effect, reason, e.expires_at ?? '', e.added_by, e.added_at];
    lines.push(row.map(cell).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
