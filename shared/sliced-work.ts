/**
 * Long synchronous work (loading, checking or indexing 100,000 list entries) written once, as a
 * generator that yields between small steps, and run either at once (`runNow`: tests, the CLI, a
 * benchmark) or in event-loop turns (`runInTurns`: a server, where one organisation's upload must
 * not hold up every other request behind a stall of a second). Both run the same steps in the same
 * order, so they give the same result.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Work done in one turn before the rest waits for the next: a quarter of the 20 ms stall budget. */
export const TURN_MS = 5;

/** Steps that yield (`yield;`) between slices and return what they made. */
export type Slices<T> = Generator<void, T, void>;

export function runNow<T>(work: Slices<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

interface Job {
  work: Slices<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/** Works waiting for their next slice, the next first: one driver runs them all, in turn. */
const jobs: Job[] = [];
let driving = false;

/**
 * Runs `work` in slices of at most about TURN_MS per event-loop turn, all works in the process
 * together: two loads each yielding on their own would run back to back in one turn (the
 * callbacks of setImmediate run together), a stall of twice the budget, or n times for n loads.
 */
export function runInTurns<T>(work: Slices<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    jobs.push({ work, resolve: resolve as (value: unknown) => void, reject });
    if (!driving) void drive();
  });
}

async function drive(): Promise<void> {
  driving = true;
  try {
    while (jobs.length > 0) {
      const since = performance.now();
      while (jobs.length > 0 && performance.now() - since < TURN_MS) {
        const job = jobs.shift()!;
        if (!runFor(job, since)) jobs.push(job);
      }
      await nextTurn();
    }
  } finally {
    driving = false;
  }
}

/** Steps `job` until the turn's budget is spent; whether it is over (done or failed). */
function runFor(job: Job, since: number): boolean {
  try {
    do {
      const step = job.work.next();
      if (step.done) {
        job.resolve(step.value);
        return true;
      }
    } while (performance.now() - since < TURN_MS);
    return false;
  } catch (err) {
    job.reject(err);
    return true;
  }
}

/** Items sorted by the engine's own sort, one run of this many at a time, then merged. */
const RUN = 1_024;
/** Items merged between two yields. */
const MERGE_STEP = 4_096;

/**
 * `items` sorted as `items.sort(compare)` would (stably), in slices: runs sorted natively, then
 * merged pairwise. A sort of 100,000 items with a comparator is a stall of 50-150 ms in one go.
 */
export function* sortedInSlices<T>(items: readonly T[], compare: (a: T, b: T) => number): Slices<T[]> {
  let from = items.slice();
  for (let i = 0; i < from.length; i += RUN) {
    const run = from.slice(i, i + RUN).sort(compare);
    for (let j = 0; j < run.length; j++) from[i + j] = run[j]!;
    yield;
  }
  let to = new Array<T>(from.length);
  for (let width = RUN; width < from.length; width *= 2) {
    for (let lo = 0; lo < from.length; lo += 2 * width)
      yield* merged(
        from,
        to,
        [lo, Math.min(lo + width, from.length), Math.min(lo + 2 * width, from.length)],
        compare,
      );
    [from, to] = [to, from];
  }
  return from;
}

/** Merges from[lo, mid) and from[mid, hi) into to[lo, hi); on a tie the left one first (stable). */
function* merged<T>(
  from: T[],
  to: T[],
  [lo, mid, hi]: [number, number, number],
  compare: (a: T, b: T) => number,
): Slices<void> {
  let [a, b] = [lo, mid];
  for (let k = lo; k < hi; k++) {
    to[k] = b >= hi || (a < mid && compare(from[a]!, from[b]!) <= 0) ? from[a++]! : from[b++]!;
    if ((k - lo) % MERGE_STEP === MERGE_STEP - 1) yield;
  }
}
