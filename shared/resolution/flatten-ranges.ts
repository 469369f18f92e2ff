/**
 * Turns sorted but possibly nested ranges into disjoint segments so a binary search can find the
 * one range that holds an address.
 *
 * The registry country files nest (about 7,500 rows: an allocation row followed by rows that
 * re-assign parts of it, e.g. 13.128.0.0/16 US then 13.128.16.0/20 MX), and the ASN file has
 * the odd overlap. The rule is the one routing uses: the more specific range wins, that is the
 * one that starts later; where it ends, the enclosing range resumes. In the current files the
 * inner rows always run to the end of the enclosing one, so nothing resumes, but a data update
 * that changes that must not open silent gaps.
 */

export interface Segments<Bound> {
  starts: Bound[];
  ends: Bound[];
  /** The input row each segment takes its value from. */
  rows: number[];
}

interface Arithmetic<Bound> {
  next: (x: Bound) => Bound;
  previous: (x: Bound) => Bound;
}

export const NUMBER_BOUNDS: Arithmetic<number> = { next: (x) => x + 1, previous: (x) => x - 1 };
export const BIGINT_BOUNDS: Arithmetic<bigint> = { next: (x) => x + 1n, previous: (x) => x - 1n };

export function flattenRanges<Bound extends number | bigint>(
  starts: ArrayLike<Bound>,
  ends: ArrayLike<Bound>,
  math: Arithmetic<Bound>,
  source: string,
): Segments<Bound> {
  const out: Segments<Bound> = { starts: [], ends: [], rows: [] };
  const emit = (from: Bound, to: Bound, row: number) => {
    if (from > to) return;
    out.starts.push(from);
    out.ends.push(to);
    out.rows.push(row);
  };
  // Rows that enclose the cursor, innermost on top.
  const open: number[] = [];
  let cursor: Bound | undefined;
  const closeUntil = (limit: Bound | undefined) => {
    for (let top = open.at(-1); top !== undefined; top = open.at(-1)) {
      const end = ends[top]!;
      if (limit !== undefined && end >= limit) return;
      emit(cursor!, end, top);
      if (end >= cursor!) cursor = math.next(end);
      open.pop();
    }
  };

  for (let row = 0; row < starts.length; row++) {
    const start = starts[row]!;
    if (start > ends[row]!) throw new Error(`${source}: row ${row + 1} ends before it starts`);
    if (row > 0 && start < starts[row - 1]!) throw new Error(`${source}: row ${row + 1} is out of order`);
    closeUntil(start);
    const enclosing = open.at(-1);
    if (enclosing !== undefined) emit(cursor!, math.previous(start), enclosing);
    open.push(row);
    cursor = start;
  }
  closeUntil(undefined);
  return out;
}
