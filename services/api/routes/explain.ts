import { Router } from 'express';
import { retainedUntil, type ScoreHistory } from '../../../shared/audit/history.ts';
import { ApiError } from '../../../shared/contract/errors.ts';
import { SCORE_ID_PATTERN } from '../../../shared/ids.ts';
import type { Authenticator, Principal } from '../auth.ts';
import { methodNotAllowed } from '../http/errors.ts';

export interface ExplainRouteDeps {
  auth: Authenticator;
  history: ScoreHistory;
}

const notFound = (id: string) =>
  new ApiError(404, { code: 'E_SCORE_NOT_FOUND', message: `no score ${id} for this organisation` });

/** GET /v1/explain/{score_id}: only the organisation that made a score sees it, for 13 months. */
export function explainRoutes(deps: ExplainRouteDeps): Router {
  const router = Router();
  router
    .route('/v1/explain/:scoreId')
    .get(deps.auth.middleware(), async (req, res) => {
      const principal = res.locals.principal as Principal;
      const id = String(req.params.scoreId);
      if (!SCORE_ID_PATTERN.test(id)) throw notFound(id);
      const stored = await deps.history.find(principal.org.org_id, id);
      if (!stored) throw notFound(id);
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
