/**
 * Routed IPv4 address space of the ASN table: how many addresses each AS originates, and the
 * address at a given offset into all routed space (for drawing addresses uniformly over it).
 * Used to measure the network-type rule by address space, where counting ASes would weigh a
 * one-/24 company like Chinanet's 100 million addresses.
 */
import type { AsnTable } from './ip-networks.ts';
import type { V4Bounds } from './ip-ranges.ts';

export interface RoutedV4 {
  /** Addresses originated per AS number. */
  perAsn: Map<number, number>;
  total: number;
  /** The `offset`-th routed address (0 <= offset < total), as an unsigned 32-bit integer. */
  addressAt: (offset: number) => number;
}

export function routedV4(table: AsnTable<V4Bounds>): RoutedV4 {
  const { starts, ends } = table.bounds;
  const n = starts.length;
  // Addresses before row i, so an offset maps to its row by binary search.
  const before = new Float64Array(n + 1);
  const perAsn = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const size = ends[i]! - starts[i]! + 1;
    before[i + 1] = before[i]! + size;
    const asn = table.asn[i]!;
    perAsn.set(asn, (perAsn.get(asn) ?? 0) + size);
  }
  const total = before[n]!;
  const addressAt = (offset: number): number => {
    if (!(offset >= 0 && offset < total)) throw new RangeError(`offset ${offset} outside routed space`);
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (before[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return starts[lo]! + (offset - before[lo]!);
  };
  return { perAsn, total, addressAt };
}

/** Dotted-quad form of an unsigned 32-bit IPv4 address. */
export function v4String(addr: number): string {
  return [addr >>> 24, (addr >>> 16) & 0xff, (addr >>> 8) & 0xff, addr & 0xff].join('.');
}
