/**
 * Binary search over sorted, non-overlapping address ranges held in typed arrays: no per-lookup
 * allocation for IPv4, a few BigInts for IPv6.
 */

/** Disjoint IPv4 ranges sorted by start; row i covers starts[i]..ends[i]. */
export interface V4Bounds {
  starts: Uint32Array;
  ends: Uint32Array;
  /**
   * For each /16 (and one past the last), the first row starting in it or after it: a lookup
   * searches only the rows of its address's /16. A plain binary search over the 400,000 rows of
   * the routing table touches a dozen 4 KiB pages, and on a virtual machine each page the TLB
   * misses can cost microseconds when other tenants are busy (docs/performance.md, "What moves
   * between runs"); this touches the index and one or two pages of rows.
   */
  bySlash16: Uint32Array;
}

const SLASH16S = 65_536;

/** The bounds of sorted IPv4 rows, with their /16 index. */
export function v4Bounds(starts: Uint32Array, ends: Uint32Array): V4Bounds {
  const bySlash16 = new Uint32Array(SLASH16S + 1);
  let row = 0;
  for (let b = 0; b <= SLASH16S; b++) {
    const from = b * SLASH16S; // 2^32 for the entry past the last /16: a double, not a uint32
    while (row < starts.length && starts[row]! < from) row++;
    bySlash16[b] = row;
  }
  return { starts, ends, bySlash16 };
}

/**
 * Disjoint IPv6 ranges sorted by start, as 128-bit integers split into high and low 64-bit
 * halves. Both halves are kept because about 4 % of the registry rows are narrower than a /64,
 * so the high half alone would merge neighbours.
 */
export interface V6Bounds {
  startHi: BigUint64Array;
  startLo: BigUint64Array;
  endHi: BigUint64Array;
  endLo: BigUint64Array;
}

const LOW_64 = (1n << 64n) - 1n;

export function toV4Bounds(starts: readonly number[], ends: readonly number[]): V4Bounds {
  return v4Bounds(Uint32Array.from(starts), Uint32Array.from(ends));
}

export function toV6Bounds(starts: readonly bigint[], ends: readonly bigint[]): V6Bounds {
  const n = starts.length;
  const bounds: V6Bounds = {
    startHi: new BigUint64Array(n),
    startLo: new BigUint64Array(n),
    endHi: new BigUint64Array(n),
    endLo: new BigUint64Array(n),
  };
  for (let i = 0; i < n; i++) {
    bounds.startHi[i] = starts[i]! >> 64n;
    bounds.startLo[i] = starts[i]! & LOW_64;
    bounds.endHi[i] = ends[i]! >> 64n;
    bounds.endLo[i] = ends[i]! & LOW_64;
  }
  return bounds;
}

/** The row whose range holds `addr`, or -1. */
export function findV4(bounds: V4Bounds, addr: number): number {
  const { starts, ends, bySlash16 } = bounds;
  // Rows before the /16's first start before addr, rows from the next /16's first after it.
  const slash16 = addr >>> 16;
  let lo = bySlash16[slash16]!;
  let hi = bySlash16[slash16 + 1]!;
  // Find the first row starting after addr; the candidate is the one before it (which may be a
  // range that began in an earlier /16).
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (starts[mid]! <= addr) lo = mid + 1;
    else hi = mid;
  }
  const row = lo - 1;
  return row >= 0 && ends[row]! >= addr ? row : -1;
}

/** The row whose range holds the 128-bit address `addrHi:addrLo`, or -1. */
export function findV6(bounds: V6Bounds, addrHi: bigint, addrLo: bigint): number {
  const { startHi, startLo, endHi, endLo } = bounds;
  let lo = 0;
  let hi = startHi.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const sHi = startHi[mid]!;
    if (sHi < addrHi || (sHi === addrHi && startLo[mid]! <= addrLo)) lo = mid + 1;
    else hi = mid;
  }
  const row = lo - 1;
  if (row < 0) return -1;
  const eHi = endHi[row]!;
  return eHi > addrHi || (eHi === addrHi && endLo[row]! >= addrLo) ? row : -1;
}
