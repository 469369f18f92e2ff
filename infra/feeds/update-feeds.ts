/**
 * `npm run feeds:update -- --from <file|dir|url> [--from ...] [--to <dir>] [--as-of <RFC 3339>]
 * [--allow-shrink]`: turns downloaded public files (shared/capabilities/feeds/importers/formats.ts) into the project's feed
 * files, for an operator with internet access; the refresher then reads them (FEED_* variables,
 * docs/data-sources.md).
 *
 * A file is refused, and the feed it would have replaced left byte for byte as it was, when it
 * does not parse (the reason names the line or entry), has no date or a date in the future, has
 * fewer records than a genuine file of its format, or would shrink the feed at the destination to
 * less than half its records (unless `--allow-shrink`). A new feed is written to a temporary file
 * and renamed into place, so a reader never sees half of one. Files for the same feed (AWS and
 * Google; several RIRs) are merged into one, dated by the oldest; if one of them is refused, the
 * feed is not written. Prints one line per input; exits 1 if anything was refused, 2 on bad usage.
 */
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parseRangeFeed } from '../../shared/capabilities/feeds/range-feed.ts';
import { FeedError } from '../../shared/capabilities/feeds/feed-error.ts';
import {
  PUBLIC_FORMATS,
  recognise,
  type PublicFormat,
} from '../../shared/capabilities/feeds/importers/formats.ts';
import { FEEDS, feedLimits } from '../../shared/capabilities/registry.ts';
import {
  mergeImports,
  type ImportedFeed,
  type ImportTarget,
} from '../../shared/capabilities/feeds/importers/imported-feed.ts';
import { errorMessage } from '../../shared/error-message.ts';

export interface UpdateOptions {
  from: string[];
  to: string;
  /** When the undated files (the Tor list) were fetched. */
  asOf?: Date;
  allowShrink: boolean;
}

export const DEFAULT_TO = 'infra/feeds';
/** Allowance for clock skew between the publisher and this machine. */
const FUTURE_SLACK_MS = 60 * 60 * 1000;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

export const USAGE =
  'usage: feeds:update -- --from <file|dir|url> [--from ...] [--to <dir>] [--as-of <RFC 3339>] [--allow-shrink]';

/** The options, or a usage error. */
export function parseUpdateArgs(argv: readonly string[]): UpdateOptions | string {
  const opts: UpdateOptions = { from: [], to: DEFAULT_TO, allowShrink: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = argv[i + 1];
    if (arg === '--allow-shrink') opts.allowShrink = true;
    else if (['--from', '--to', '--as-of'].includes(arg) && value !== undefined) {
      i++;
      if (arg === '--from') opts.from.push(value);
      else if (arg === '--to') opts.to = value;
      else if (RFC3339.test(value)) opts.asOf = new Date(value);
      else return `--as-of '${value}' is not an RFC 3339 date-time`;
    } else return `unexpected argument '${arg}'`;
  }
  return opts.from.length > 0 ? opts : 'no --from';
}

interface Input {
  /** The path or URL, as given. */
  label: string;
  format?: PublicFormat;
  bytes?: Buffer;
  fetchedAt?: Date;
  /** Where `fetchedAt` comes from, said beside a date that is not the file's own. */
  fetchedAtFrom?: string;
  result?: ImportedFeed;
  refused?: string;
}

const isUrl = (s: string) => /^https?:\/\//i.test(s);

async function download(url: string, opts: UpdateOptions, now: Date): Promise<Input> {
  // Unlike the refresher (sources.ts), this echoes the whole URL: the operator typed it, and the
  // public lists need no token.
  const path = decodeURIComponent(new URL(url).pathname);
  const name = path.split('/').pop() ?? '';
  const input: Input = { label: url, format: recognise(path) };
  if (!input.format) return { ...input, refused: `'${name}' is not a recognised public file name` };
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(120_000) });
    if (res.status !== 200) {
      await res.body?.cancel();
      return { ...input, refused: `HTTP ${res.status}` };
    }
    const bytes = await readBounded(res, input.format.maxBytes);
    if (!bytes) return { ...input, refused: tooLarge(input.format) };
    input.bytes = bytes;
  } catch (err) {
    return { ...input, refused: `download failed (${errorMessage(err)})` };
  }
  input.fetchedAt = opts.asOf ?? now;
  input.fetchedAtFrom = opts.asOf ? 'the --as-of flag' : 'the download time';
  return input;
}

const tooLarge = (format: PublicFormat) =>
  `larger than the ${format.maxBytes} bytes a ${format.name} may have: not read`;

/** The body, or undefined as soon as it passes `max` bytes (read no further). */
async function readBounded(res: Response, max: number): Promise<Buffer | undefined> {
  if (Number(res.headers.get('content-length') ?? 0) > max) {
    await res.body?.cancel();
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.byteLength;
    if (size > max) {
      await res.body?.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function readLocal(path: string, opts: UpdateOptions, inDir: boolean): Promise<Input | undefined> {
  const format = recognise(path);
  if (!format) {
    // In a directory, other files are passed over (and said so); named on its own, it is an error.
    return inDir
      ? undefined
      : { label: path, refused: `'${basename(path)}' is not a recognised public file name` };
  }
  let bytes: Buffer;
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    // The size first: a file past the bound is refused without being read.
    info = await stat(path);
    if (info.size > format.maxBytes) return { label: path, format, refused: tooLarge(format) };
    bytes = await readFile(path);
  } catch (err) {
    return {
      label: path,
      format,
      refused: `cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    };
  }
  return {
    label: path,
    format,
    bytes,
    fetchedAt: opts.asOf ?? info.mtime,
    fetchedAtFrom: opts.asOf ? 'the --as-of flag' : "the file's modification time",
  };
}

async function gather(opts: UpdateOptions, now: Date, print: (line: string) => void): Promise<Input[]> {
  const inputs: Input[] = [];
  for (const from of opts.from) {
    if (isUrl(from)) {
      inputs.push(await download(from, opts, now));
      continue;
    }
    const info = await stat(from).catch(() => undefined);
    if (!info) inputs.push({ label: from, refused: 'no such file or directory' });
    else if (info.isDirectory()) {
      for (const name of (await readdir(from)).sort()) {
        const path = join(from, name);
        if (!(await stat(path)).isFile()) continue;
        const input = await readLocal(path, opts, true);
        if (input) inputs.push(input);
        else print(`${path}: skipped, not a recognised public file name`);
      }
    } else {
      const input = await readLocal(from, opts, false);
      if (input) inputs.push(input);
    }
  }
  return inputs;
}

/** Imports one input and checks it on its own: parse, date, the format's minimum size. */
function importOne(input: Input, now: Date): void {
  const { format, bytes, fetchedAt } = input;
  if (!format || !bytes || !fetchedAt) return;
  try {
    const result = format.importer(bytes, fetchedAt, feedLimits(format.feed));
    if (result.asOf.getTime() > now.getTime() + FUTURE_SLACK_MS) {
      throw new FeedError(`its date ${result.asOf.toISOString()} is in the future`);
    }
    if (result.records > format.maxRecords) {
      throw new FeedError(
        `${result.records} records, more than a ${format.name} may have (${format.maxRecords})`,
      );
    }
    if (result.records < format.minRecords) {
      throw new FeedError(
        `only ${result.records} records, a genuine ${format.name} has at least ${format.minRecords} (truncated?)`,
      );
    }
    input.result = result;
  } catch (err) {
    if (!(err instanceof FeedError)) throw err;
    input.refused = err.message;
  }
}

/** The refresher's parser of a target feed, with the kinds its lines name and its limits. */
function parseTarget(target: ImportTarget, bytes: Buffer) {
  return parseRangeFeed(bytes, FEEDS[target]?.kinds, feedLimits(target));
}

/** Records of the feed at the destination, as the refresher counts them; undefined if none. */
async function currentRecords(target: ImportTarget, path: string): Promise<number | undefined> {
  const bytes = await readFile(path).catch(() => undefined);
  if (!bytes) return undefined;
  try {
    return parseTarget(target, bytes).length;
  } catch {
    // A broken old feed is no yardstick: replacing it is the point.
    return undefined;
  }
}

/** Writes one feed, or says why not; the old file is replaced only by a rename of a complete one. */
async function writeTarget(feed: ImportedFeed, path: string, opts: UpdateOptions): Promise<void> {
  // The written text must be what the refresher accepts (range-feed.ts; as-of.ts reads the header).
  parseTarget(feed.feed, Buffer.from(feed.text));
  const old = await currentRecords(feed.feed, path);
  if (old !== undefined && feed.records < old / 2 && !opts.allowShrink) {
    throw new FeedError(
      `${feed.records} records would replace ${old} (less than half; --allow-shrink to accept)`,
    );
  }
  await mkdir(opts.to, { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, feed.text);
  await rename(tmp, path);
}

/** Runs the command; returns its exit code. */
export async function updateFeeds(
  opts: UpdateOptions,
  printRaw: (line: string) => void = console.log,
  now = new Date(),
): Promise<number> {
  // File names, URLs and refusal reasons quote what others wrote: each printed line stays one line.
  const print = (line: string) => printRaw(printable(line));
  const inputs = await gather(opts, now, print);
  if (inputs.length === 0) {
    print(`${opts.from.join(', ')}: no recognised public file`);
    return 1;
  }
  for (const input of inputs) importOne(input, now);

  const outcome = new Map<ImportTarget, string>();
  for (const target of new Set(PUBLIC_FORMATS.map((f) => f.feed))) {
    const mine = inputs.filter((i) => i.format?.feed === target);
    if (mine.length === 0) continue;
    const path = join(opts.to, importTargetFile(target));
    const kept = (await exists(path)) ? 'left as it was' : 'not written';
    const refusedPart = mine.find((i) => i.refused);
    if (refusedPart) {
      const why = mine.length > 1 ? ` (${refusedPart.label} was refused)` : '';
      outcome.set(target, `${path} ${kept}${why}`);
      continue;
    }
    const merged = mergeImports(mine.map((i) => i.result!));
    try {
      await writeTarget(merged, path, opts);
      const of = mine.length > 1 ? ` (merged: ${merged.records} records, as-of ${iso(merged.asOf)})` : '';
      outcome.set(target, `wrote ${path}${of}`);
    } catch (err) {
      if (!(err instanceof FeedError)) throw err;
      for (const i of mine) i.refused = err.message;
      outcome.set(target, `${path} ${kept}`);
    }
  }

  for (const i of inputs) {
    const target = i.format?.feed;
    const where = target ? outcome.get(target) : undefined;
    if (i.refused) {
      const what = i.format ? `${i.format.name}: ` : '';
      print(`${i.label}: ${what}refused: ${i.refused}${where ? `; ${where}` : ''}`);
      continue;
    }
    const r = i.result!;
    const dated = i.format!.datedByFetch ? ` (from ${i.fetchedAtFrom}: the file carries no date)` : '';
    print(`${i.label}: ${i.format!.name}, ${r.records} records, as-of ${iso(r.asOf)}${dated} -> ${where}`);
  }
  return inputs.some((i) => i.refused) ? 1 : 0;
}

/**
 * The text with every control, format and line-separator character written as `\u{..}`: a file
 * named `x\n... verified` cannot print a line of its own, nor a terminal escape or a bidi override.
 */
export function printable(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );
const iso = (d: Date) => d.toISOString().replace(/\.000Z$/, 'Z');

/**
 * The file each target is written to: its seed's name as its capability declares it. Here, not
 * beside the importers: they are imported by the capabilities the registry lists, so reading the
 * registry from there would be an import circle.
 */
function importTargetFile(target: ImportTarget): string {
  const seed = FEEDS[target]?.seed;
  if (!seed || !('file' in seed)) throw new Error(`feed ${target} declares no seed file`);
  return seed.file;
}
