/**
 * Network velocity's counts for a simulated stream of scores, kept in memory: what the audit
 * sink's velocity consumer writes to Redis (count.lua) and the refresher publishes from it
 * (publish.ts), for a replay that runs faster than the clock (loadtest/backtest-velocity-traffic.ts).
 *
 * Each subject's hash holds the fields count.lua writes (first seen, each organisation's latest
 * score by its keyed tag, scores per 10 minutes, hour and day), under the counter's canonical
 * subjects and keyed digests; the counts of a moment are read from it by the counter's own rule
 * (`countsOf`), and the table is encoded and decoded by the snapshot codec a node loads it with.
 */
import type { VelocityCounts, VelocityTable } from '../shared/capabilities/network-velocity/table.ts';
import { countsOf } from '../shared/capabilities/network-velocity/counter.ts';
import { networkVelocity } from '../shared/capabilities/network-velocity/index.ts';
import {
  MAX_ORGANISATIONS,
  MIN_ORGANISATIONS,
  organisationTag,
  velocitySubjects,
  WINDOW_S,
} from '../shared/capabilities/network-velocity/subjects.ts';
import { encodeVelocityTable } from '../shared/capabilities/network-velocity/table.ts';
import { decodeSnapshot } from '../shared/capabilities/snapshots.ts';
import type { SubjectKeys } from '../shared/capabilities/subject-key.ts';

const MONTH_MS = WINDOW_S['30d'] * 1000;

export class VelocityTally {
  private readonly keys: SubjectKeys;
  /** Per subject digest: its hash as count.lua leaves it (field -> value). */
  private readonly hashes = new Map<string, Record<string, string>>();
  /** Digests at least MIN_ORGANISATIONS organisations scored within 30 days, by their last such score. */
  private readonly hot = new Map<string, number>();

  constructor(keys: SubjectKeys) {
    this.keys = keys;
  }

  /** One organisation's score of a subject, counted into its number, address and network. */
  add(orgId: string, subject: { phone_number?: string; ip_address?: string }, ms: number): void {
    const tag = `o:${organisationTag(this.keys, orgId)}`;
    for (const { canonical } of velocitySubjects(subject)) {
      const digest = this.keys.key(canonical);
      const hash = this.hashes.get(digest) ?? {};
      this.hashes.set(digest, hash);
      if (!countScore(hash, tag, ms)) continue;
      if (organisationsWithin(hash, ms) >= MIN_ORGANISATIONS)
        this.hot.set(digest, Math.max(this.hot.get(digest) ?? 0, ms));
    }
  }

  /**
   * The table the refresher would publish at `nowMs` (the hot subjects' counts), decoded as a node
   * decodes it and named with the same secret, as services/api/node.ts names it.
   */
  table(nowMs: number): VelocityTable {
    const rows: VelocityCounts[] = [];
    for (const [digest, last] of this.hot)
      if (last >= nowMs - MONTH_MS) rows.push(countsOf(digest, this.hashes.get(digest)!, nowMs));
    const table = decodeSnapshot(networkVelocity.key, encodeVelocityTable(rows, nowMs)) as VelocityTable;
    table.naming = this.keys;
    return table;
  }
}

/**
 * count.lua for one score: false for a re-delivery (the organisation's latest score at that very
 * millisecond). A new organisation past MAX_ORGANISATIONS is not kept, its score still counts.
 */
function countScore(hash: Record<string, string>, tag: string, ms: number): boolean {
  const last = hash[tag] === undefined ? undefined : Number(hash[tag]);
  if (last === ms) return false;
  if (last === undefined && organisationsWithin(hash, ms) < MAX_ORGANISATIONS) hash[tag] = String(ms);
  else if (last !== undefined && ms > last) hash[tag] = String(ms);
  for (const [kind, size] of [
    ['m:', 600_000],
    ['h:', 3_600_000],
    ['d:', 86_400_000],
  ] as const) {
    const field = `${kind}${Math.floor(ms / size)}`;
    hash[field] = String(Number(hash[field] ?? 0) + 1);
  }
  const s = Math.floor(ms / 1000);
  if (hash.f === undefined || s < Number(hash.f)) hash.f = String(s);
  return true;
}

/** Organisations whose latest score is within 30 days of `ms`: what count.lua returns. */
function organisationsWithin(hash: Record<string, string>, ms: number): number {
  let n = 0;
  for (const [field, value] of Object.entries(hash))
    if (field.startsWith('o:') && Number(value) >= ms - MONTH_MS) n++;
  return n;
}
