/**
 * A set of IPv4 and IPv6 ranges with a small kind per range (for example vpn or proxy) and,
 * where the feed names it, the service the range belongs to ("Mullvad VPN", "Amazon Web
 * Services"), held in typed arrays for the same binary search the network tables use. Built from
 * a feed's CIDRs and single addresses; where ranges nest, the more specific one wins
 * (flatten-ranges.ts).
 *
 * A feed may also list whole autonomous systems (`AS9009,vpn # M247`). They are kept as AS
 * numbers, not expanded into prefixes: a node matches them against the origin AS that the
 * network tables it holds give the address (`systemAt`), so a list of systems always follows the
 * newest routing table, never the one the list happened to be imported with.
 */
import { BIGINT_BOUNDS, flattenRanges, NUMBER_BOUNDS } from './flatten-ranges.ts';
import {
  findV4,
  findV6,
  toV4Bounds,
  toV6Bounds,
  v4Bounds,
  type V4Bounds,
  type V6Bounds,
} from './ip-ranges.ts';
import type { Table } from './codec.ts';
import { take, type Decoded } from './codec.ts';

export interface RangeSet {
  v4: V4Bounds;
  v4Kind: Uint8Array;
  /** Per range: 0 when the feed names no service, else 1 + an index into `services`. */
  v4Service: Uint16Array;
  v6: V6Bounds;
  v6Kind: Uint8Array;
  v6Service: Uint16Array;
  services: readonly string[];
  /** Whole autonomous systems the feed lists, sorted by number, with a kind and service each. */
  systems: { asn: Uint32Array; kind: Uint8Array; service: Uint16Array };
}

/** A whole autonomous system a feed lists. */
export interface SystemEntry {
  version: 'as';
  asn: number;
  kind: number;
  service?: string;
}

/** A line of a range feed: an address range, or an autonomous system. */
export type FeedEntry = RangeEntry | SystemEntry;

/** One range of a feed; `kind` is an index into the feed's kinds, starting at 1 (0 is "not listed"). */
export interface RangeEntry {
  version: 4 | 6;
  start: bigint;
  end: bigint;
  kind: number;
  /** The service the feed names for the range (its trailing comment), if any. */
  service?: string;
}

/** A numeric IP address as the lookups take it: IPv4 as a number, IPv6 as two 64-bit halves. */
export type AddressKey = { v4: number } | { hi: bigint; lo: bigint };

function side<Bound extends number | bigint>(
  entries: RangeEntry[],
  toBound: (x: bigint) => Bound,
  math: typeof NUMBER_BOUNDS | typeof BIGINT_BOUNDS,
  serviceIndex: (name: string | undefined) => number,
) {
  // Enclosing ranges first at equal starts, so the nested one is seen as the more specific.
  const sorted = [...entries].sort((a, b) =>
    a.start < b.start ? -1 : a.start > b.start ? 1 : a.end > b.end ? -1 : a.end < b.end ? 1 : 0,
  );
  const starts = sorted.map((e) => toBound(e.start));
  const ends = sorted.map((e) => toBound(e.end));
  const segments = flattenRanges<Bound>(starts, ends, math as never, 'range feed');
  return {
    segments,
    kinds: Uint8Array.from(segments.rows, (row) => sorted[row]!.kind),
    services: Uint16Array.from(segments.rows, (row) => serviceIndex(sorted[row]!.service)),
  };
}

/** The listed systems, sorted, the first listing of a number kept. */
function systemsOf(entries: readonly SystemEntry[], serviceIndex: (name: string | undefined) => number) {
  const byAsn = new Map<number, SystemEntry>();
  for (const e of entries) if (!byAsn.has(e.asn)) byAsn.set(e.asn, e);
  const sorted = [...byAsn.values()].sort((a, b) => a.asn - b.asn);
  return {
    asn: Uint32Array.from(sorted, (e) => e.asn),
    kind: Uint8Array.from(sorted, (e) => e.kind),
    service: Uint16Array.from(sorted, (e) => serviceIndex(e.service)),
  };
}

export function buildRangeSet(entries: readonly FeedEntry[]): RangeSet {
  const services: string[] = [];
  const indexOf = new Map<string, number>();
  const serviceIndex = (name: string | undefined): number => {
    if (name === undefined) return 0;
    let i = indexOf.get(name);
    if (i === undefined) {
      if (services.length === 0xfffe) throw new Error('range feed: more than 65,534 service names');
      i = services.push(name);
      indexOf.set(name, i);
    }
    return i;
  };
  const v4 = side(
    entries.filter((e): e is RangeEntry => e.version === 4),
    (x) => Number(x),
    NUMBER_BOUNDS,
    serviceIndex,
  );
  const v6 = side(
    entries.filter((e): e is RangeEntry => e.version === 6),
    (x) => x,
    BIGINT_BOUNDS,
    serviceIndex,
  );
  return {
    v4: toV4Bounds(v4.segments.starts, v4.segments.ends),
    v4Kind: v4.kinds,
    v4Service: v4.services,
    v6: toV6Bounds(v6.segments.starts, v6.segments.ends),
    v6Kind: v6.kinds,
    v6Service: v6.services,
    services,
    systems: systemsOf(
      entries.filter((e): e is SystemEntry => e.version === 'as'),
      serviceIndex,
    ),
  };
}

/** The listing of an autonomous system: its kind (0 when the set does not list it) and service. */
export function systemAt(set: RangeSet, asn: number): { kind: number; service?: string } {
  const { asn: numbers, kind, service } = set.systems;
  let lo = 0;
  let hi = numbers.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = numbers[mid]!;
    if (at === asn) {
      const named = service[mid]!;
      return named === 0 ? { kind: kind[mid]! } : { kind: kind[mid]!, service: set.services[named - 1]! };
    }
    if (at < asn) lo = mid + 1;
    else hi = mid - 1;
  }
  return { kind: 0 };
}

/** The range holding the address: its kind (0 when no range does) and the service named for it. */
export function rangeAt(set: RangeSet, addr: AddressKey): { kind: number; service?: string } {
  const v4 = 'v4' in addr;
  const row = v4 ? findV4(set.v4, addr.v4) : findV6(set.v6, addr.hi, addr.lo);
  if (row < 0) return { kind: 0 };
  const kind = (v4 ? set.v4Kind : set.v6Kind)[row]!;
  const service = (v4 ? set.v4Service : set.v6Service)[row]!;
  return service === 0 ? { kind } : { kind, service: set.services[service - 1]! };
}

/** The kind of the range holding the address, or 0 when no range does. */
export function kindAt(set: RangeSet, addr: AddressKey): number {
  return rangeAt(set, addr).kind;
}

export function rangeSetArrays(set: RangeSet, prefix: string): Record<string, Table> {
  return {
    [`${prefix}.v4.starts`]: set.v4.starts,
    [`${prefix}.v4.ends`]: set.v4.ends,
    [`${prefix}.v4.kind`]: set.v4Kind,
    [`${prefix}.v6.startHi`]: set.v6.startHi,
    [`${prefix}.v6.startLo`]: set.v6.startLo,
    [`${prefix}.v6.endHi`]: set.v6.endHi,
    [`${prefix}.v6.endLo`]: set.v6.endLo,
    [`${prefix}.v6.kind`]: set.v6Kind,
    [`${prefix}.v4.service`]: set.v4Service,
    [`${prefix}.v6.service`]: set.v6Service,
    // The names as UTF-8 JSON: the codec holds typed arrays only.
    [`${prefix}.services`]: new Uint8Array(Buffer.from(JSON.stringify(set.services))),
    [`${prefix}.as.asn`]: set.systems.asn,
    [`${prefix}.as.kind`]: set.systems.kind,
    [`${prefix}.as.service`]: set.systems.service,
  };
}

export function rangeSetFrom(decoded: Decoded, prefix: string, what: string): RangeSet {
  const t = <T extends Table>(name: string, type: new (...args: never[]) => T) =>
    take(decoded, `${prefix}.${name}`, type, what);
  const v4Kind = t('v4.kind', Uint8Array);
  const v6Kind = t('v6.kind', Uint8Array);
  // A snapshot written before ranges carried service names has none of these: no names, not an error.
  const named = decoded.arrays.has(`${prefix}.services`);
  const services: unknown = named ? JSON.parse(Buffer.from(t('services', Uint8Array)).toString('utf8')) : [];
  if (!Array.isArray(services) || !services.every((s) => typeof s === 'string')) {
    throw new Error(`${what}: ${prefix}.services is not a list of names`);
  }
  return {
    v4: v4Bounds(t('v4.starts', Uint32Array), t('v4.ends', Uint32Array)),
    v4Kind,
    v4Service: named ? t('v4.service', Uint16Array) : new Uint16Array(v4Kind.length),
    v6: {
      startHi: t('v6.startHi', BigUint64Array),
      startLo: t('v6.startLo', BigUint64Array),
      endHi: t('v6.endHi', BigUint64Array),
      endLo: t('v6.endLo', BigUint64Array),
    },
    v6Kind,
    v6Service: named ? t('v6.service', Uint16Array) : new Uint16Array(v6Kind.length),
    services,
    // A snapshot written before feeds listed systems has none: no systems, not an error.
    systems: decoded.arrays.has(`${prefix}.as.asn`)
      ? {
          asn: t('as.asn', Uint32Array),
          kind: t('as.kind', Uint8Array),
          service: t('as.service', Uint16Array),
        }
      : { asn: new Uint32Array(0), kind: new Uint8Array(0), service: new Uint16Array(0) },
  };
}
