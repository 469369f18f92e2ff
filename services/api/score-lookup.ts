import { retainedUntil, type ScoreHistory, type StoredScore } from '../../shared/audit/history.ts';
import { ApiError } from '../../shared/contract/errors.ts';
import { SCORE_ID_PATTERN, scoreIdTime } from '../../shared/ids.ts';
import type { ExplainCache } from './explain-cache.ts';
import type { HistoryLookups } from './history-lookups.ts';

export interface ScoreLookupDeps {
  history: ScoreHistory;
  /** Bounds the ClickHouse lookups of a cache miss, per node and per organisation. */
  lookups: HistoryLookups;
  /** Recent scores, so a score is found before the audit pipeline reached ClickHouse. */
  recent: Pick<ExplainCache, 'get'>;
}

const notFound = (id: string) =>
  new ApiError(404, { code: 'E_SCORE_NOT_FOUND', message: `no score ${id} for this organisation` });

/** ClickHouse down is an outage of history, not a missing score: say so and when to retry. */
async function findInHistory(
  history: ScoreHistory,
  lookups: HistoryLookups,
  orgId: string,
  id: string,
): Promise<StoredScore | null> {
  const release = lookups.acquire(orgId);
  try {
    return await history.find(orgId, id);
  } catch {
    throw new ApiError(
      503,
      { code: 'E_HISTORY_UNAVAILABLE', message: 'score history is unavailable; retry shortly' },
      { 'Retry-After': '5' },
    );
  } finally {
    release();
  }
}

/** Only an id made this recently may still be on its way to the cache: older ones are not waited for. */
const RECENT_ID_MS = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The copy of a score made moments ago, which may not be in the cache yet: it is written off the
 * hot path after the 200, so a caller that reports an outcome at once, on another node of a
 * loaded deployment, can overtake it. Polls the cache for at most `graceMs`; only for ids whose
 * UUIDv7 time is within the last minute, so a request about an old or unknown id is not held.
 */
async function awaitRecentCopy(
  deps: ScoreLookupDeps,
  orgId: string,
  id: string,
  graceMs: number,
): Promise<StoredScore | null> {
  const madeAt = scoreIdTime(id);
  if (madeAt === null || Math.abs(Date.now() - madeAt) > RECENT_ID_MS) return null;
  const until = Date.now() + graceMs;
  for (let wait = 20; Date.now() < until; wait = Math.min(wait * 2, 250)) {
    await sleep(Math.min(wait, Math.max(0, until - Date.now())));
    const stored = await deps.recent.get(orgId, id);
    if (stored) return stored;
  }
  return null;
}

/**
 * A score of the caller's organisation, for 13 months: the Redis copy answers first (it exists
 * only for the first minutes, and holds the same record the sink writes), ClickHouse after that.
 * Unknown, another organisation's or past retention: 404 `E_SCORE_NOT_FOUND`, all alike.
 * `recentGraceMs`: how long to wait for the copy of a score made in the last minute.
 */
export async function findOwnScore(
  deps: ScoreLookupDeps,
  orgId: string,
  id: string,
  opts: { recentGraceMs?: number } = {},
): Promise<StoredScore> {
  if (!SCORE_ID_PATTERN.test(id)) throw notFound(id);
  let stored: StoredScore | null = await deps.recent.get(orgId, id);
  if (!stored) stored = await findInHistory(deps.history, deps.lookups, orgId, id);
  if (!stored && opts.recentGraceMs) stored = await awaitRecentCopy(deps, orgId, id, opts.recentGraceMs);
  if (!stored || stored.org_id !== orgId) throw notFound(id);
  if (retainedUntil(stored.scored_at_ms).getTime() <= Date.now()) throw notFound(id);
  return stored;
}
