import { retainedUntil, type ScoreHistory, type StoredScore } from '../../shared/audit/history.ts';
import { ApiError } from '../../shared/contract/errors.ts';
import { SCORE_ID_PATTERN } from '../../shared/ids.ts';
import type { ExplainCache } from './explain-cache.ts';

export interface ScoreLookupDeps {
  history: ScoreHistory;
  /** Recent scores, so a score is found before the audit pipeline reached ClickHouse. */
  recent: Pick<ExplainCache, 'get'>;
}

const notFound = (id: string) =>
  new ApiError(404, { code: 'E_SCORE_NOT_FOUND', message: `no score ${id} for this organisation` });

/** ClickHouse down is an outage of history, not a missing score: say so and when to retry. */
async function findInHistory(history: ScoreHistory, orgId: string, id: string): Promise<StoredScore | null> {
  try {
    return await history.find(orgId, id);
  } catch {
    throw new ApiError(
      503,
      { code: 'E_HISTORY_UNAVAILABLE', message: 'score history is unavailable; retry shortly' },
      { 'Retry-After': '5' },
    );
  }
}

/**
 * A score of the caller's organisation, for 13 months: the Redis copy answers first (it exists
 * only for the first minutes, and holds the same record the sink writes), ClickHouse after that.
 * Unknown, another organisation's or past retention: 404 `E_SCORE_NOT_FOUND`, all alike.
 */
export async function findOwnScore(deps: ScoreLookupDeps, orgId: string, id: string): Promise<StoredScore> {
  if (!SCORE_ID_PATTERN.test(id)) throw notFound(id);
  let stored: StoredScore | null = await deps.recent.get(id);
  if (!stored) stored = await findInHistory(deps.history, orgId, id);
  if (!stored || stored.org_id !== orgId) throw notFound(id);
  if (retainedUntil(stored.scored_at_ms).getTime() <= Date.now()) throw notFound(id);
  return stored;
}
