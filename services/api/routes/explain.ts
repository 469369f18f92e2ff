import { Router } from 'express';
import { retainedUntil, type ScoreHistory, type StoredScore } from '../../../shared/audit/history.ts';
import { ApiError } from '../../../shared/contract/errors.ts';
import { SCORE_ID_PATTERN } from '../../../shared/ids.ts';
import type { Authenticator, Principal } from '../auth.ts';
import type { ExplainCache } from '../explain-cache.ts';
import type { HistoryLookups } from '../history-lookups.ts';
import type { CallerBudget } from '../http/caller-budget.ts';
import { methodNotAllowed } from '../http/errors.ts';

export interface ExplainRouteDeps {
  auth: Authenticator;
  budget: CallerBudget;
  lookups: HistoryLookups;
  history: ScoreHistory;
  /** Recent scores, so explain works before the audit pipeline reached ClickHouse. */
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

/**
 * GET /v1/explain/{score_id}: only the organisation that made a score sees it, for 13 months.
 * The Redis copy answers first (it exists only for the first minutes, and holds the same record
 * the sink writes); ClickHouse answers after that.
 */
export function explainRoutes(deps: ExplainRouteDeps): Router {
  const router = Router();
  router
    .route('/v1/explain/:scoreId')
    .get(deps.auth.middleware(), deps.budget.explain, async (req, res) => {
      const principal = res.locals.principal as Principal;
      const orgId = principal.org.org_id;
      const id = String(req.params.scoreId);
      if (!SCORE_ID_PATTERN.test(id)) throw notFound(id);
      let stored: StoredScore | null = await deps.recent.get(orgId, id);
      if (!stored) stored = await findInHistory(deps.history, deps.lookups, orgId, id);
      if (!stored || stored.org_id !== orgId) throw notFound(id);
      const until = retainedUntil(stored.scored_at_ms);
      if (until.getTime() <= Date.now()) throw notFound(id);
      const response = stored.response as { score_version?: string };
      res.json({
        score_id: stored.score_id,
        scored_at: new Date(stored.scored_at_ms).toISOString(),
        retained_until: until.toISOString(),
        score_version: response.score_version,
        request: stored.request,
        response: stored.response,
        evidence: stored.evidence,
      });
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
