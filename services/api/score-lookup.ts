import { setTimeout as sleep } from 'node:timers/promises';
import { retainedUntil, type ScoreHistory, type StoredScore } from '../../shared/audit/history.ts';
import { ApiError } from '../../shared/contract/errors.ts';
import { SCORE_ID_PATTERN, scoreIdTime } from '../../shared/ids.ts';
import type { ExplainCache } from '../../shared/audit/explain-cache.ts';
import { Backoff } from '../../shared/retry.ts';
import type { HistoryLookups } from '../../shared/audit/history-lookups.ts';
import type { RecentScores, ScoredSubject } from './recent-scores.ts';

export interface ScoreLookupDeps {
  history: ScoreHistory;
  /** Bounds the ClickHouse lookups of a cache miss, per node and per organisation. */
  lookups: HistoryLookups;
  /** Every score of the last 15 minutes, whatever the explain-copy share let through. */
  index: Pick<RecentScores, 'get'>;
  /** The explain copies: they hold the subject too, for a score whose index entry was not written. */
  copies: Pick<ExplainCache, 'get'>;
}

const notFound = (id: string) =>
  new ApiError(404, { code: 'E_SCORE_NOT_FOUND', message: `no score ${id} for this organisation` });

/** The subject fields of a stored score's request (validated when it was scored). */
function scoredSubject(stored: StoredScore): ScoredSubject {
  const s = (stored.request.subject ?? {}) as Record<string, unknown>;
  return {
    scored_at_ms: stored.scored_at_ms,
    subject: {
      ...(typeof s.phone_number === 'string' ? { phone_number: s.phone_number } : {}),
      ...(typeof s.ip_address === 'string' ? { ip_address: s.ip_address } : {}),
    },
  };
}

/** The index first, then the explain copy; both in the cache Redis, both keyed by organisation. */
async function findFresh(deps: ScoreLookupDeps, orgId: string, id: string): Promise<ScoredSubject | null> {
  const entry = await deps.index.get(orgId, id);
  if (entry) return entry;
  const copy = await deps.copies.get(orgId, id);
  return copy && copy.org_id === orgId ? scoredSubject(copy) : null;
}

/** ClickHouse down is an outage of history, not a missing score: say so and when to retry. */
async function findInHistory(
  deps: ScoreLookupDeps,
  orgId: string,
  id: string,
): Promise<ScoredSubject | null> {
  const release = deps.lookups.acquire(orgId);
  let stored: StoredScore | null;
  try {
    stored = await deps.history.find(orgId, id);
  } catch {
    throw new ApiError(
      503,
      { code: 'E_HISTORY_UNAVAILABLE', message: 'score history is unavailable; retry shortly' },
      { 'Retry-After': '5' },
    );
  } finally {
    release();
  }
  return stored && stored.org_id === orgId ? scoredSubject(stored) : null;
}

/** Only an id made this recently may still be on its way to the cache: older ones are not waited for. */
const RECENT_ID_MS = 60_000;

const isRecent = (id: string) => {
  const madeAt = scoreIdTime(id);
  return madeAt !== null && Math.abs(Date.now() - madeAt) <= RECENT_ID_MS;
};

/**
 * The entry of a score made moments ago on another node, which may not be in the cache yet: it is
 * written without waiting for Redis, so a report sent at once to another node of a loaded
 * deployment can overtake it. Polls the cache for at most `graceMs`.
 */
async function awaitFresh(
  deps: ScoreLookupDeps,
  orgId: string,
  id: string,
  graceMs: number,
): Promise<ScoredSubject | null> {
  const until = Date.now() + graceMs;
  const backoff = new Backoff(20, 250);
  while (Date.now() < until) {
    await sleep(Math.min(backoff.next(), Math.max(0, until - Date.now())));
    const found = await findFresh(deps, orgId, id);
    if (found) return found;
  }
  return null;
}

/**
 * The subject and time of a score of the caller's organisation, for 13 months: the recent-score
 * index answers first (every score of the last 15 minutes), then the explain copy, then
 * ClickHouse. Unknown, another organisation's or past retention: 404 `E_SCORE_NOT_FOUND`, all
 * alike. `recentGraceMs`: how long to wait for the entry of a score made in the last minute
 * (only those: a request about an old or unknown id is not held). For such a score a refused
 * ClickHouse lookup (busy, down) is not the answer yet: its entry may still land; the 503 is
 * answered only when it does not.
 */
export async function findScoredSubject(
  deps: ScoreLookupDeps,
  orgId: string,
  id: string,
  opts: { recentGraceMs?: number } = {},
): Promise<ScoredSubject> {
  if (!SCORE_ID_PATTERN.test(id)) throw notFound(id);
  const wait = opts.recentGraceMs && isRecent(id) ? opts.recentGraceMs : 0;
  let found = await findFresh(deps, orgId, id);
  let historyError: unknown;
  if (!found) {
    try {
      found = await findInHistory(deps, orgId, id);
    } catch (err) {
      if (!wait) throw err;
      historyError = err;
    }
  }
  if (!found && wait) found = await awaitFresh(deps, orgId, id, wait);
  if (!found) throw historyError ?? notFound(id);
  if (retainedUntil(found.scored_at_ms).getTime() <= Date.now()) throw notFound(id);
  return found;
}
