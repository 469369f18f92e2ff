/**
 * Tor-operator space: the networks the exit list itself shows to be run for Tor exits, so that an
 * exit that joined after the list was taken (exit relays come and go by the hour, mostly inside
 * the same operators' networks) is still recognised. Built from the list alone, plus the routing
 * table's AS sizes when the node holds it:
 *
 * - an IPv4 /24 or an IPv6 /48 holding at least `blockExits` listed exits;
 * - an AS (IPv4 only) with at least `asExits` listed exits making at least `asShare` of its
 *   announced addresses: the AS of a Tor non-profit, which runs little else.
 *
 * The thresholds were measured on the shipped list (docs/capabilities.md, "Tor-operator space"):
 * every AS at 2 % or more of its addresses is a known exit operator, while the general hosting
 * networks that carry many exits (FranTech, FlokiNET, MAXKO, ...) stay under 1 %.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { IpNetworks } from '../../resolution/ip-networks.ts';
import { findV4 } from '../../resolution/ip-ranges.ts';
import type { AddressKey, RangeSet } from '../../resolution/range-set.ts';

export const OPERATOR_SPACE_RULE = {
  /** Listed exits in one IPv4 /24 or IPv6 /48 that make it an exit operator's block. */
  blockExits: 3,
  /** Listed exits in one AS, and their least share of its announced IPv4 addresses. */
  asExits: 3,
  asShare: 0.02,
} as const;

/** A listed range larger than this is already listed space: it is not counted as exits. */
const MAX_COUNTED_RANGE = 256;

export interface OperatorSpace {
  /** IPv4 /24s by their first 24 bits. */
  v4Blocks: ReadonlySet<number>;
  /** IPv6 /48s by their first 48 bits. */
  v6Blocks: ReadonlySet<bigint>;
  /** AS numbers whose announced IPv4 space the list shows to be an exit operator's. */
  ases: ReadonlySet<number>;
}

function countInto<K>(counts: Map<K, number>, key: K): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function atLeast<K>(counts: Map<K, number>, n: number): Set<K> {
  return new Set([...counts].filter(([, c]) => c >= n).map(([k]) => k));
}

/**
 * Announced IPv4 addresses per AS, once per routing table: one pass over its ~400,000 rows, 30-60
 * ms on a busy 2-core machine. An API node computes it before it swaps a new table or list in
 * (`prepareOperatorSpace`), in slices between which other callbacks run; computed here on first
 * use instead, it was a stall of the first request after each swap. Kept as two typed arrays, not
 * a Map of ~70,000 entries the collector would trace for as long as the table is served.
 */
interface AsSizes {
  /** AS numbers, ascending. */
  asn: Uint32Array;
  size: Float64Array;
}
const sizesByTable = new WeakMap<IpNetworks, AsSizes>();

/** Rows of the routing table counted per slice: a few milliseconds of one event-loop turn. */
const ROWS_PER_SLICE = 25_000;

function countSizes(networks: IpNetworks, sizes: Map<number, number>, from: number, to: number): void {
  const { bounds, asn } = networks.asnV4;
  for (let i = from; i < to; i++) {
    const a = asn[i]!;
    sizes.set(a, (sizes.get(a) ?? 0) + bounds.ends[i]! - bounds.starts[i]! + 1);
  }
}

function packSizes(sizes: Map<number, number>): AsSizes {
  const asn = Uint32Array.from(sizes.keys()).sort();
  return { asn, size: Float64Array.from(asn, (a) => sizes.get(a)!) };
}

function sizeOf({ asn, size }: AsSizes, a: number): number | undefined {
  let lo = 0;
  let hi = asn.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (asn[mid] === a) return size[mid];
    if (asn[mid]! < a) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

function asSizes(networks: IpNetworks): AsSizes {
  let packed = sizesByTable.get(networks);
  if (packed) return packed;
  const sizes = new Map<number, number>();
  countSizes(networks, sizes, 0, networks.asnV4.asn.length);
  packed = packSizes(sizes);
  sizesByTable.set(networks, packed);
  return packed;
}

/** The operator space the exit list `exits` shows; without `networks`, its blocks only. */
export function operatorSpaceOf(exits: RangeSet, networks?: IpNetworks): OperatorSpace {
  const rule = OPERATOR_SPACE_RULE;
  const v4 = new Map<number, number>();
  const perAs = new Map<number, number>();
  for (let i = 0; i < exits.v4.starts.length; i++) {
    const start = exits.v4.starts[i]!;
    const end = exits.v4.ends[i]!;
    if (end - start + 1 > MAX_COUNTED_RANGE) continue;
    for (let addr = start; addr <= end; addr++) {
      countInto(v4, addr >>> 8);
      if (networks) {
        const row = findV4(networks.asnV4.bounds, addr);
        if (row >= 0) countInto(perAs, networks.asnV4.asn[row]!);
      }
    }
  }
  const v6 = new Map<bigint, number>();
  for (let i = 0; i < exits.v6.startHi.length; i++) {
    // One listed address or a small range inside one /48: counted once per range.
    const hi = exits.v6.startHi[i]!;
    if (hi >> 16n === exits.v6.endHi[i]! >> 16n) countInto(v6, hi >> 16n);
  }
  let ases = new Set<number>();
  if (networks) {
    const sizes = asSizes(networks);
    ases = new Set(
      [...perAs]
        .filter(([a, c]) => c >= rule.asExits && c / (sizeOf(sizes, a) ?? Infinity) >= rule.asShare)
        .map(([a]) => a),
    );
  }
  return { v4Blocks: atLeast(v4, rule.blockExits), v6Blocks: atLeast(v6, rule.blockExits), ases };
}

/** Whether the address (and its origin AS, when known) lies in the operator space. */
export function inOperatorSpace(space: OperatorSpace, key: AddressKey, asn?: number): boolean {
  if ('v4' in key) return space.v4Blocks.has(key.v4 >>> 8) || (asn !== undefined && space.ases.has(asn));
  return space.v6Blocks.has(key.hi >> 16n);
}

/**
 * The space of a node's current list and routing table, built once per snapshot pair: both are
 * replaced as whole objects on a swap, so the pair identifies the data.
 */
const built = new WeakMap<RangeSet, { networks: IpNetworks | undefined; space: OperatorSpace }>();

/**
 * Builds the space of a list and routing table about to be swapped in, so no request pays for it:
 * the AS sizes in slices that each yield the event loop, then the space itself (a few ms once
 * the sizes are known).
 */
export async function prepareOperatorSpace(exits: RangeSet, networks: IpNetworks | undefined): Promise<void> {
  if (networks && !sizesByTable.has(networks)) {
    const sizes = new Map<number, number>();
    const rows = networks.asnV4.asn.length;
    for (let from = 0; from < rows; from += ROWS_PER_SLICE) {
      countSizes(networks, sizes, from, Math.min(rows, from + ROWS_PER_SLICE));
      await nextTurn();
    }
    sizesByTable.set(networks, packSizes(sizes));
  }
  currentOperatorSpace(exits, networks);
}

export function currentOperatorSpace(exits: RangeSet, networks: IpNetworks | undefined): OperatorSpace {
  const held = built.get(exits);
  if (held && held.networks === networks) return held.space;
  const space = operatorSpaceOf(exits, networks);
  built.set(exits, { networks, space });
  return space;
}
