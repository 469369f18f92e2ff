/**
 * The network-velocity snapshot: the subjects past the threshold as a sorted digest table, so a
 * node answers from memory (architecture rule 18: no round trip on the request path).
 *
 * One row per subject that at least MIN_ORGANISATIONS distinct organisations scored within 30
 * days: the first 64 bits of its keyed digest (sorted, binary-searched), the bucket of its distinct
 * organisations and of its scores in each window, and when it was first seen. Buckets only: the
 * raw counts stay in the counter's Redis, so no node, response or audit row ever holds one.
 */
import type { Decoded } from '../../resolution/codec.ts';
import { encode } from '../snapshot-format.ts';
import type { SubjectKeys } from '../subject-key.ts';
import { bucketOf, MIN_ORGANISATIONS, WINDOWS } from './subjects.ts';

/** One subject's counts, as the counter computed them for one instant (never leaves the refresher). */
export interface VelocityCounts {
  /** The subject's keyed digest (32 hex). */
  digest: string;
  /** Distinct organisations in each window (1 h, 24 h, 30 d). */
  organisations: readonly [number, number, number];
  /** Scores in each window. */
  scores: readonly [number, number, number];
  firstSeenS: number;
}

export interface VelocityTable {
  /** First 64 bits of each subject's digest, ascending. */
  keys: BigUint64Array;
  /** Per subject and window (3 a row): the organisations' bucket, 0 below the threshold. */
  organisations: Uint8Array;
  /** Per subject and window (3 a row): the scores' bucket. */
  scores: Uint8Array;
  firstSeenS: Uint32Array;
  /** When the counts were taken: a window is read only while they are recent enough for it. */
  countedAtS: number;
  /**
   * How subjects are named (the ledger's secret): the API node sets it when it loads the table
   * (services/api/node.ts). Without it the table cannot be read and the capability finds nothing.
   */
  naming?: SubjectKeys;
}

const prefix64 = (digest: string) => BigInt(`0x${digest.slice(0, 16)}`);

/** The organisations' bucket of a count: nothing below the threshold, whatever the count. */
const organisationsBucket = (n: number) => (n >= MIN_ORGANISATIONS ? bucketOf(n) : 0);

/** Builds the snapshot's payload from the counts of the subjects past the threshold in some window. */
export function encodeVelocityTable(rows: readonly VelocityCounts[], countedAtMs: number): Buffer {
  const shown = rows
    .filter((r) => r.organisations.some((n) => n >= MIN_ORGANISATIONS))
    .map((r) => ({ key: prefix64(r.digest), r }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const n = shown.length;
  const keys = new BigUint64Array(n);
  const organisations = new Uint8Array(3 * n);
  const scores = new Uint8Array(3 * n);
  const firstSeenS = new Uint32Array(n);
  shown.forEach(({ key, r }, i) => {
    keys[i] = key;
    for (let w = 0; w < WINDOWS.length; w++) {
      organisations[3 * i + w] = organisationsBucket(r.organisations[w]!);
      scores[3 * i + w] = bucketOf(r.scores[w]!);
    }
    firstSeenS[i] = r.firstSeenS;
  });
  return encode(
    { countedAtS: Math.floor(countedAtMs / 1000) },
    {
      'velocity.keys': keys,
      'velocity.orgs': organisations,
      'velocity.scores': scores,
      'velocity.first': firstSeenS,
    },
  );
}

/** A node's view of the payload (typed-array views into it, no copy). */
export function decodeVelocityTable(decoded: Decoded, what: string): VelocityTable {
  const take = <T>(name: string, type: new (...args: never[]) => T): T => {
    const a = decoded.arrays.get(`velocity.${name}`);
    if (!(a instanceof type)) throw new Error(`${what}: velocity.${name} missing or of the wrong type`);
    return a;
  };
  const keys = take('keys', BigUint64Array);
  const organisations = take('orgs', Uint8Array);
  const scores = take('scores', Uint8Array);
  const firstSeenS = take('first', Uint32Array);
  const countedAtS = decoded.header.countedAtS;
  if (typeof countedAtS !== 'number') throw new Error(`${what}: no countedAtS`);
  if (organisations.length !== 3 * keys.length || scores.length !== 3 * keys.length)
    throw new Error(`${what}: rows of unequal length`);
  for (let i = 1; i < keys.length; i++)
    if (keys[i - 1]! >= keys[i]!) throw new Error(`${what}: keys not strictly ascending`);
  return { keys, organisations, scores, firstSeenS, countedAtS };
}

/** The row of a digest, or -1. */
export function rowOf(table: VelocityTable, digest: string): number {
  const key = prefix64(digest);
  let lo = 0;
  let hi = table.keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const k = table.keys[mid]!;
    if (k === key) return mid;
    if (k < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
