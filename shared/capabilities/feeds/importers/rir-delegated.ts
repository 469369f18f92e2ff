/**
 * A Regional Internet Registry's extended delegation statistics (`delegated-<rir>-extended-latest`,
 * the format of the NRO's RIR statistics exchange), into the allocated and assigned address ranges
 * as CIDR lines: `allocated-ranges.txt`, the input the unallocated-space rule will read.
 *
 * Pipe-separated lines: a version line `2|ripencc|20261124|records|start|end|UTC offset` whose
 * third field is the file's date; summary lines `ripencc|*|ipv4|*|count|summary`; records
 * `registry|cc|type|start|value|date|status[|opaque-id|...]`. For `ipv4` the value is an address
 * count, which need not be a power of two (so a block can need several CIDRs); for `ipv6` it is
 * the prefix length. `asn` records are counted, not written. The summary counts are checked
 * against the records, which catches a truncated download.
 */
import ipaddr from 'ipaddr.js';
import { FeedError } from '../feed-error.ts';
import { isCanonicalIPv4, isStrictIPv6 } from '../strict-address.ts';
import { FEED_LIMITS, imported, type ImportedFeed } from './imported-feed.ts';
import { errorMessage } from '../../../error-message.ts';

const KEEP = new Set(['allocated', 'assigned']);
const KNOWN = new Set([...KEEP, 'available', 'reserved']);
const FLOOR = FEED_LIMITS.allocatedRanges.minPrefix;

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

export function importRirDelegated(bytes: Buffer): ImportedFeed {
  const text = bytes.toString('utf8').split('\n');
  let registry: string | undefined;
  let asOf: Date | undefined;
  let serial = '';
  const summary = new Map<string, number>();
  const seen = new Map<string, number>();
  const lines: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const raw = text[i]!.trim();
    if (raw === '' || raw.startsWith('#')) continue;
    const at = `line ${i + 1}`;
    const f = raw.split('|');
    if (registry === undefined) {
      // The version line comes first; its serial is the date, at midnight in the given offset.
      const m = /^(\d{4})(\d{2})(\d{2})$/.exec(f[2] ?? '');
      if (!/^\d+(\.\d+)?$/.test(f[0] ?? '') || !m) {
        throw new FeedError(`${at}: expected the version line 'version|registry|YYYYMMDD|...'`);
      }
      const offset = /^([+-])(\d{2})(\d{2})$/.exec(f[6] ?? '');
      const zone = offset ? `${offset[1]}${offset[2]}:${offset[3]}` : 'Z';
      asOf = new Date(`${m[1]}-${m[2]}-${m[3]}T00:00:00${zone}`);
      registry = f[1] ?? '';
      serial = f[2]!;
      continue;
    }
    if (f[5] === 'summary') {
      summary.set(f[2] ?? '', Number(f[4]));
      continue;
    }
    const [, , type = '', start = '', value = '', , status = ''] = f;
    if (f.length < 7 || !['ipv4', 'ipv6', 'asn'].includes(type)) {
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
      if (widest < FLOOR.v4) throw new FeedError(`${at}: a block wider than /${FLOOR.v4}`);
      lines.push(...cidrs);
    } else {
      const bits = Number(value);
      if (!isStrictIPv6(start) || !/^(0|[1-9]\d{0,2})$/.test(value) || bits > 128) {
        throw new FeedError(`${at}: not an IPv6 start and prefix length`);
      }
      if (bits < FLOOR.v6) throw new FeedError(`${at}: /${bits} is wider than /${FLOOR.v6}`);
      lines.push(`${ipaddr.IPv6.parse(start).toString()}/${bits}`);
    }
  }
  if (registry === undefined || !asOf)
    throw new FeedError('no version line: the date of the data is unknown');
  for (const [type, count] of summary) {
    if ((seen.get(type) ?? 0) !== count) {
      throw new FeedError(
        `the summary lists ${count} ${type} records, the file has ${seen.get(type) ?? 0} (truncated?)`,
      );
    }
  }
  return imported('allocatedRanges', `${registry} delegated-extended statistics (${serial})`, asOf, lines);
}
