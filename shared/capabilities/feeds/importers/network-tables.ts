/**
 * The network type's two tables from their publishers, into the files its snapshot reads
 * (resolution/ip-networks.ts NETWORK_FILES: `start,end,asn,name` and `start,end,cc` per row, the
 * bounds as decimal integers, one file per address family), so a deployment's routing and
 * registry-country tables follow their publishers instead of an npm release:
 *
 * - the origin AS of every routed range: IPtoASN's `ip2asn-v4.tsv.gz` and `ip2asn-v6.tsv.gz`
 *   (https://iptoasn.com/, rebuilt from the global routing table every hour, public domain
 *   under the PDDL 1.0). Tab-separated `range_start range_end AS_number country AS_description`,
 *   no header; space no one announces is listed as AS 0 `Not routed`, which is left out. The
 *   description is the AS handle, then the registered organisation where it has one ("WIDE-BB
 *   WIDE Project"): the organisation is kept as the AS name when there is one, as the registries'
 *   and DB-IP's names are, which the network-type rules read (resolution/as-type.ts). The file
 *   carries no date: it is dated when it was fetched.
 * - the registry country of every allocated or assigned block: the five RIRs' delegated-extended
 *   statistics (rir-delegated.ts), the same files the allocation table reads, dated by their end
 *   dates.
 *
 * Each import is a set of rows; `mergeTables` joins a table's parts (v4 and v6 files, five
 * registries), sorts them, and dates the result by its oldest part, in an `as-of` file beside the
 * tables (feeds/as-of.ts).
 */
import { gunzipSync } from 'node:zlib';
import ipaddr from 'ipaddr.js';
import { NETWORK_FILES } from '../../../resolution/ip-networks.ts';
import { errorMessage } from '../../../error-message.ts';
import { FeedError } from '../feed-error.ts';
import { isCanonicalIPv4, isStrictIPv6 } from '../strict-address.ts';
import { parseRirDelegated, checkRirSummary } from './rir-delegated.ts';

/** The feeds these tables are: the network type's routing table and its registry-country table. */
export type TableFeed = 'asn' | 'ipCountry';

interface Row {
  start: bigint;
  end: bigint;
  /** The row's value columns, CSV-ready (`13335,"Cloudflare, Inc."` or `AU`). */
  value: string;
}

export interface ImportedTable {
  feed: TableFeed;
  source: string;
  asOf: Date;
  v4: Row[];
  v6: Row[];
  records: number;
}

/** Decompressed bytes of a `.gz` file (by its magic number), bounded: a zip bomb is refused. */
export function gunzipped(bytes: Buffer, maxOutput: number): Buffer {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  try {
    return gunzipSync(bytes, { maxOutputLength: maxOutput });
  } catch (err) {
    throw new FeedError(
      `not a readable gzip file, or larger than ${maxOutput} bytes unpacked (${errorMessage(err)})`,
    );
  }
}

function addressValue(text: string, at: string): { version: 4 | 6; value: bigint } {
  const v4 = isCanonicalIPv4(text);
  if (!v4 && !isStrictIPv6(text)) throw new FeedError(`${at}: '${text}' is not an IP address`);
  const value = ipaddr
    .parse(text)
    .toByteArray()
    .reduce((v, b) => (v << 8n) | BigInt(b), 0n);
  return { version: v4 ? 4 : 6, value };
}

/** A CSV field: quoted when it holds a comma or a quote, as the tables' reader expects. */
function csvField(text: string): string {
  return /[",]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The AS name in an IPtoASN description: the organisation after the handle, else the handle. */
export function asNameOf(description: string): string {
  const m = /^[A-Z0-9][A-Z0-9_.-]*\s+(\S.*)$/.exec(description.trim());
  return (m ? m[1]! : description).trim().slice(0, 200);
}

/** IPtoASN's `ip2asn-v4.tsv` or `ip2asn-v6.tsv` (either may be gzipped), into routing-table rows. */
export function importIp2asn(bytes: Buffer, fetchedAt: Date): ImportedTable {
  const text = gunzipped(bytes, 256 * 1024 * 1024)
    .toString('utf8')
    .split('\n');
  const v4: Row[] = [];
  const v6: Row[] = [];
  for (let i = 0; i < text.length; i++) {
    const line = text[i]!.replace(/\r$/, '');
    if (line === '') continue;
    const at = `line ${i + 1}`;
    const f = line.split('\t');
    if (f.length !== 5 || !/^\d{1,10}$/.test(f[2]!)) {
      throw new FeedError(
        `${at}: expected 'range_start<TAB>range_end<TAB>AS_number<TAB>country<TAB>description'`,
      );
    }
    const asn = Number(f[2]);
    const start = addressValue(f[0]!, at);
    const end = addressValue(f[1]!, at);
    if (start.version !== end.version || end.value < start.value) throw new FeedError(`${at}: not a range`);
    // Space no one announces: absent from the routing table, as in the registries' own tables.
    if (asn === 0) continue;
    if (asn > 0xffffffff) throw new FeedError(`${at}: AS ${f[2]} is not a 32-bit AS number`);
    const row = { start: start.value, end: end.value, value: `${asn},${csvField(asNameOf(f[4]!))}` };
    (start.version === 4 ? v4 : v6).push(row);
  }
  return {
    feed: 'asn',
    source: 'IPtoASN ip2asn (date: when it was fetched)',
    asOf: fetchedAt,
    v4,
    v6,
    records: v4.length + v6.length,
  };
}

/** A registry's delegated-extended statistics, into registry-country rows. */
export function importRirCountries(bytes: Buffer): ImportedTable {
  const parsed = parseRirDelegated(bytes);
  checkRirSummary(parsed);
  const rows = (version: 4 | 6) =>
    parsed.countries
      .filter((c) => c.version === version)
      .map((c) => ({ start: c.start, end: c.end, value: c.cc }));
  const v4 = rows(4);
  const v6 = rows(6);
  return {
    feed: 'ipCountry',
    source: `${parsed.registry} delegated-extended statistics (${parsed.serial})`,
    asOf: parsed.asOf,
    v4,
    v6,
    records: v4.length + v6.length,
  };
}

function csv(rows: Row[]): Buffer {
  rows.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  return Buffer.from(rows.map((r) => `${r.start},${r.end},${r.value}\n`).join(''));
}

/** A table's parts joined into the files its snapshot reads, dated by the oldest part. */
export function mergeTables(parts: readonly ImportedTable[]): {
  files: Map<string, Buffer>;
  records: number;
} {
  const first = parts[0];
  if (!first) throw new FeedError('nothing to merge');
  const asOf = new Date(Math.min(...parts.map((p) => p.asOf.getTime())));
  const names =
    first.feed === 'asn'
      ? [NETWORK_FILES.asnV4, NETWORK_FILES.asnV6]
      : [NETWORK_FILES.countryV4, NETWORK_FILES.countryV6];
  const files = new Map<string, Buffer>([
    [names[0]!, csv(parts.flatMap((p) => p.v4))],
    [names[1]!, csv(parts.flatMap((p) => p.v6))],
    ['as-of', Buffer.from(`${asOf.toISOString()}\n`)],
    ['sources', Buffer.from(`${parts.map((p) => p.source).join('\n')}\n`)],
  ]);
  return { files, records: parts.reduce((n, p) => n + p.records, 0) };
}
