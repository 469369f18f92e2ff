/**
 * A Regional Internet Registry's extended delegation statistics (`delegated-<rir>-extended-latest`,
 * the format of the NRO's RIR statistics exchange), into the allocated and assigned address ranges
 * as CIDR lines: `allocated-ranges.txt`, the input the unallocated-space rule will read.
 *
 * Pipe-separated lines, after any `#` comment lines (APNIC's file opens with a 27-line banner):
 * - the version line `version|registry|serial|records|startdate|enddate|UTCoffset`, as ARIN writes
 *   it `2.3|arin|1784970020780|201456|19700101|20260725|-0400`. The file's date is the enddate
 *   (YYYYMMDD), taken at midnight in the UTC offset given (AFRINIC writes `00000`: UTC). The serial
 *   is only a sequence number whose form differs per registry (ARIN: milliseconds since the epoch,
 *   RIPE NCC: Unix seconds, the others a date, APNIC's a day after its enddate); the startdate may
 *   be empty (APNIC);
 * - summary lines `ripencc|*|ipv4|*|count|summary`;
 * - records `registry|cc|type|start|value|date|status[|opaque-id|extensions...]`, the date empty,
 *   `00000000` or YYYYMMDD (not used here). For `ipv4` the value is an address count, which need
 *   not be a power of two (so a block can need several CIDRs); for `ipv6` it is the prefix length.
 *   Every record is counted by type; only `allocated` and `assigned` IPv4 and IPv6 ones are
 *   written (`asn`, `available` and `reserved` records are not).
 * `parseRirDelegated` reads the lines; `importRirDelegated` also checks the summary counts against
 * the records (`checkRirSummary`), which catches a truncated download.
 * Real excerpts of all five registries' files: test/fixtures/publishers/rir (PROVENANCE.md).
 */
import ipaddr from 'ipaddr.js';
import { FeedError } from '../feed-error.ts';
import { isCanonicalIPv4, isStrictIPv6, type PrefixFloor } from '../strict-address.ts';
import { imported, type FeedLimits, type ImportedFeed } from './imported-feed.ts';
import { errorMessage } from '../../../error-message.ts';

const KEEP = new Set(['allocated', 'assigned']);
const KNOWN = new Set([...KEEP, 'available', 'reserved']);
const TYPES = new Set(['ipv4', 'ipv6', 'asn']);
/**
 * Registry delegations: IANA hands the registries IPv4 /8s and IPv6 /12s, so nothing they delegate
 * onwards is wider. A wider record is a garbled file.
 */
export const REGISTRY_FLOOR: PrefixFloor = { v4: 8, v6: 12 };
/** A record's country: two capital letters (`ZZ`, unknown, and an empty field are not written). */
const COUNTRY = /^(?!ZZ)[A-Z]{2}$/;

/** What one statistics file says, before its summary counts are checked against its records. */
export interface RirDelegated {
  /** The version line's registry, e.g. `arin`, `ripencc`. */
  registry: string;
  /** The version line's serial, as written (its form differs per registry). */
  serial: string;
  /** The version line's enddate at midnight in its UTC offset: the date of the data. */
  asOf: Date;
  /** The summary lines' counts, by record type (`asn`, `ipv4`, `ipv6`). */
  summary: Map<string, number>;
  /** The record lines present, by record type. */
  seen: Map<string, number>;
  /** The allocated and assigned address ranges, as CIDRs, in file order. */
  lines: string[];
  /** The same ranges with the country each record names, for the registry-country table. */
  countries: CountryRange[];
}

/** An allocated or assigned block and the two-letter country its record names. */
export interface CountryRange {
  version: 4 | 6;
  start: bigint;
  end: bigint;
  cc: string;
}

/** The CIDRs covering `count` IPv4 addresses from `start`: each as large as alignment allows. */
export function ipv4BlockToCidrs(start: number, count: number): string[] {
  if (!Number.isInteger(count) || count < 1 || start + count > 2 ** 32) {
    throw new FeedError(`block of ${count} addresses from ${start} is out of range`);
  }
  const out: string[] = [];
  let at = start;
  let left = count;
  while (left > 0) {
    // The largest power of two that both divides `at` (alignment) and fits in what is left.
    let size = at === 0 ? 2 ** 32 : 2 ** Math.min(31 - Math.clz32(at & -at), 32);
    while (size > left) size /= 2;
    const bytes = [at >>> 24, (at >>> 16) & 255, (at >>> 8) & 255, at & 255];
    out.push(`${bytes.join('.')}/${32 - Math.log2(size)}`);
    at += size;
    left -= size;
  }
  return out;
}

function ipv4Number(text: string): number | undefined {
  if (!isCanonicalIPv4(text)) return undefined;
  return ipaddr.IPv4.parse(text)
    .toByteArray()
    .reduce((v, b) => v * 256 + b, 0);
}

/** A YYYYMMDD calendar date at midnight in `[+-]HHMM` (or UTC for AFRINIC's `00000` or none). */
function enddateAt(enddate: string, offset: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(enddate);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const utc = new Date(Date.UTC(year, month - 1, day));
  if (utc.getUTCFullYear() !== year || utc.getUTCMonth() !== month - 1 || utc.getUTCDate() !== day) {
    return undefined;
  }
  const signed = /^([+-])(\d{2})(\d{2})$/.exec(offset);
  if (!signed) return utc;
  const minutes = (Number(signed[2]) * 60 + Number(signed[3])) * (signed[1] === '-' ? -1 : 1);
  return new Date(utc.getTime() - minutes * 60_000);
}

/** The version line, or why it is not one (`at` names the line). */
function versionLine(f: string[], at: string): { registry: string; serial: string; asOf: Date } {
  const [version = '', registry = '', serial = '', records = '', , enddate = '', offset = ''] = f;
  if (
    f.length < 7 ||
    !/^\d+(\.\d+)?$/.test(version) ||
    !/^[a-z]+$/.test(registry) ||
    !/^\d+$/.test(serial) ||
    !/^\d+$/.test(records)
  ) {
    throw new FeedError(
      `${at}: expected the version line 'version|registry|serial|records|startdate|enddate|UTCoffset'`,
    );
  }
  if (!/^([+-]\d{4}|0*)$/.test(offset)) {
    throw new FeedError(`${at}: the version line's UTC offset '${offset}' is not +HHMM or -HHMM`);
  }
  const asOf = enddateAt(enddate, offset);
  if (!asOf) throw new FeedError(`${at}: the version line's enddate '${enddate}' is not a date (YYYYMMDD)`);
  return { registry, serial, asOf };
}

/**
 * The statistics file's version line, summary counts and records: the allocated and assigned
 * address ranges as CIDRs, the records counted by type. Refuses a malformed line, naming it; does
 * not compare the summary counts with the records (importRirDelegated does).
 */
export function parseRirDelegated(bytes: Buffer, floor: PrefixFloor = REGISTRY_FLOOR): RirDelegated {
  const text = bytes.toString('utf8').split('\n');
  let head: { registry: string; serial: string; asOf: Date } | undefined;
  const summary = new Map<string, number>();
  const seen = new Map<string, number>();
  const lines: string[] = [];
  const countries: CountryRange[] = [];
  for (let i = 0; i < text.length; i++) {
    const raw = text[i]!.trim();
    if (raw === '' || raw.startsWith('#')) continue;
    const at = `line ${i + 1}`;
    const f = raw.split('|');
    if (head === undefined) {
      // The version line comes first.
      head = versionLine(f, at);
      continue;
    }
    if (f[5] === 'summary') {
      if (!TYPES.has(f[2] ?? '') || !/^\d+$/.test(f[4] ?? '')) {
        throw new FeedError(`${at}: expected the summary line 'registry|*|type|*|count|summary'`);
      }
      summary.set(f[2]!, Number(f[4]));
      continue;
    }
    const [, cc = '', type = '', start = '', value = '', , status = ''] = f;
    if (f.length < 7 || !TYPES.has(type)) {
      throw new FeedError(`${at}: expected 'registry|cc|ipv4|ipv6|asn|start|value|date|status'`);
    }
    if (!KNOWN.has(status)) throw new FeedError(`${at}: unknown status '${status}'`);
    seen.set(type, (seen.get(type) ?? 0) + 1);
    if (type === 'asn' || !KEEP.has(status)) continue;
    if (type === 'ipv4') {
      const first = ipv4Number(start);
      if (first === undefined || !/^\d+$/.test(value))
        throw new FeedError(`${at}: not an IPv4 start and count`);
      let cidrs: string[];
      try {
        cidrs = ipv4BlockToCidrs(first, Number(value));
      } catch (err) {
        throw new FeedError(`${at}: ${errorMessage(err)}`);
      }
      const widest = Math.min(...cidrs.map((c) => Number(c.slice(c.indexOf('/') + 1))));
      if (widest < floor.v4) throw new FeedError(`${at}: a block wider than /${floor.v4}`);
      lines.push(...cidrs);
      if (COUNTRY.test(cc)) {
        countries.push({ version: 4, start: BigInt(first), end: BigInt(first + Number(value) - 1), cc });
      }
    } else {
      const bits = Number(value);
      if (!isStrictIPv6(start) || !/^(0|[1-9]\d{0,2})$/.test(value) || bits > 128) {
        throw new FeedError(`${at}: not an IPv6 start and prefix length`);
      }
      if (bits < floor.v6) throw new FeedError(`${at}: /${bits} is wider than /${floor.v6}`);
      lines.push(`${ipaddr.IPv6.parse(start).toString()}/${bits}`);
      if (COUNTRY.test(cc)) {
        const first = ipaddr.IPv6.parse(start)
          .toByteArray()
          .reduce((v, b) => (v << 8n) | BigInt(b), 0n);
        countries.push({ version: 6, start: first, end: first + (1n << BigInt(128 - bits)) - 1n, cc });
      }
    }
  }
  if (head === undefined) throw new FeedError('no version line: the date of the data is unknown');
  return { ...head, summary, seen, lines, countries };
}

/** Refuses a file whose records disagree with its summary counts: a truncated download. */
export function checkRirSummary(parsed: Pick<RirDelegated, 'summary' | 'seen'>): void {
  for (const [type, count] of parsed.summary) {
    const seen = parsed.seen.get(type) ?? 0;
    if (seen !== count) {
      throw new FeedError(`the summary lists ${count} ${type} records, the file has ${seen} (truncated?)`);
    }
  }
}

export function importRirDelegated(bytes: Buffer, _fetchedAt: Date, limits: FeedLimits): ImportedFeed {
  const parsed = parseRirDelegated(bytes, limits.minPrefix);
  checkRirSummary(parsed);
  const source = `${parsed.registry} delegated-extended statistics (${parsed.serial})`;
  return imported('allocatedRanges', source, parsed.asOf, parsed.lines, limits);
}
