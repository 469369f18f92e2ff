import { Router } from 'express';
import type { Authenticator, Principal } from '../auth.ts';
import { jsonBody } from '../http/json-body.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { admitScoreRequest, type ContextLookup } from '../score-admission.ts';
import type { Scorer } from '../scorer.ts';

export interface ScoreRouteDeps {
  auth: Authenticator;
  scorer: Scorer;
  contexts: ContextLookup;
}

/** POST /v1/score. Order of checks: authenticate, validate, (controls), score. */
export function scoreRoutes(deps: ScoreRouteDeps): Router {
  const router = Router();
  router
    .route('/v1/score')
    .post(deps.auth.middleware(), jsonBody, async (req, res) => {
      const startedAt = performance.now();
      const principal = res.locals.principal as Principal;
      const admitted = await admitScoreRequest(
        req.body,
        req.get('idempotency-key'),
        principal.org,
        deps.contexts,
      );
      res.json(deps.scorer.score(admitted, principal, startedAt));
    })
    .all(methodNotAllowed(['POST']));
  return router;
}
