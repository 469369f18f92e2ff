import { SCORE_ID_PATTERN } from '../ids.ts';
import { retainedUntil, type ScoreHistory, type StoredScore } from './history.ts';

/** Where a score is found: the short-lived Redis copy first, then ClickHouse history. */
export interface ExplainSources {
  recent: { get(orgId: string, scoreId: string): Promise<StoredScore | null> };
  history: Pick<ScoreHistory, 'find'>;
  /**
   * Takes a slot for one ClickHouse lookup and returns its release (the API's HistoryLookups
   * bound them per node and per organisation); throws when none is free.
   */
  acquire?: (orgId: string) => () => void;
}

/** The body of GET /v1/explain/{score_id}, which the portal's explain view shows too. */
export interface Explanation {
  score_id: string;
  scored_at: string;
  retained_until: string;
  score_version: string | undefined;
  request: Record<string, unknown>;
  response: Record<string, unknown>;
  evidence: Record<string, unknown>;
}

/** ClickHouse could not be asked: an outage of history, not a missing score. */
export class HistoryUnavailableError extends Error {}

/**
 * One score of one organisation, or null when the id is malformed, unknown, another
 * organisation's, or past retention. The Redis copy answers first (it exists only for the first
 * minutes and holds the same record the sink writes); ClickHouse answers after that.
 */
export async function findExplanation(
  sources: ExplainSources,
  orgId: string,
  scoreId: string,
  now = Date.now(),
): Promise<Explanation | null> {
  if (!SCORE_ID_PATTERN.test(scoreId)) return null;
  let stored = await sources.recent.get(orgId, scoreId);
  if (!stored) {
    const release = sources.acquire?.(orgId);
    try {
      stored = await sources.history.find(orgId, scoreId);
    } catch (err) {
      throw new HistoryUnavailableError('score history is unavailable', { cause: err });
    } finally {
      release?.();
    }
  }
  if (!stored || stored.org_id !== orgId) return null;
  const until = retainedUntil(stored.scored_at_ms);
  if (until.getTime() <= now) return null;
  const response = stored.response as { score_version?: string };
  return {
    score_id: stored.score_id,
    scored_at: new Date(stored.scored_at_ms).toISOString(),
    retained_until: until.toISOString(),
    score_version: response.score_version,
    request: stored.request,
    response: stored.response,
    evidence: stored.evidence,
  };
}
