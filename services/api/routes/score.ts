import { Router } from 'express';
import { ApiError } from '../../../shared/contract/errors.ts';
import { ScoreRequest } from '../../../shared/contract/request.ts';
import { issuesToErrors } from '../../../shared/contract/validation.ts';
import type { Authenticator, Principal } from '../auth.ts';
import { jsonBody } from '../http/json-body.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { checkEntitlements, type Scorer } from '../scorer.ts';

export interface ScoreRouteDeps {
  auth: Authenticator;
  scorer: Scorer;
}

/** POST /v1/score. Order of checks: authenticate, validate, (controls), score. */
export function scoreRoutes(deps: ScoreRouteDeps): Router {
  const router = Router();
  router
    .route('/v1/score')
    .post(deps.auth.middleware(), jsonBody, (req, res) => {
      const startedAt = performance.now();
      const principal = res.locals.principal as Principal;
      const parsed = ScoreRequest.safeParse(req.body);
      if (!parsed.success) throw new ApiError(422, issuesToErrors(parsed.error.issues));
      const shadow = checkEntitlements(parsed.data, principal);
      res.json(deps.scorer.score(parsed.data, principal, shadow, startedAt));
    })
    .all(methodNotAllowed(['POST']));
  return router;
}
