import { Router } from 'express';
import { retainedUntil } from '../../../shared/audit/history.ts';
import type { Authenticator, Principal } from '../auth.ts';
import type { CallerBudget } from '../http/caller-budget.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { findOwnScore, type ScoreLookupDeps } from '../score-lookup.ts';

export interface ExplainRouteDeps extends ScoreLookupDeps {
  auth: Authenticator;
  budget: CallerBudget;
}

/**
 * GET /v1/explain/{score_id}: only the organisation that made a score sees it, for 13 months
 * (see findOwnScore: the Redis copy first, ClickHouse after that).
 */
export function explainRoutes(deps: ExplainRouteDeps): Router {
  const router = Router();
  router
    .route('/v1/explain/:scoreId')
    .get(deps.auth.middleware(), deps.budget.explain, async (req, res) => {
      const principal = res.locals.principal as Principal;
      const stored = await findOwnScore(deps, principal.org.org_id, String(req.params.scoreId));
      const until = retainedUntil(stored.scored_at_ms);
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
