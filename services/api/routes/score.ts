import { Router } from 'express';
import type { Authenticator, Principal } from '../auth.ts';
import type { AdmissionControl } from '../controls/controls.ts';
import type { CallerBudget } from '../http/caller-budget.ts';
import { jsonBody } from '../http/json-body.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { checkScoreRequest } from '../score-request.ts';
import type { Scorer } from '../scorer.ts';

export interface ScoreRouteDeps {
  auth: Authenticator;
  budget: CallerBudget;
  scorer: Scorer;
  controls: AdmissionControl;
}

/** POST /v1/score. Order of checks: authenticate, validate, controls (rate, credits, idempotency), score. */
export function scoreRoutes(deps: ScoreRouteDeps): Router {
  const router = Router();
  router
    .route('/v1/score')
    .post(deps.auth.middleware(), deps.budget.organisation, jsonBody, async (req, res) => {
      const startedAt = performance.now();
      const principal = res.locals.principal as Principal;
      const checked = checkScoreRequest(req.body, req.get('idempotency-key'), principal.org, (id) =>
        deps.scorer.versionState().status.get(id),
      );
      // The live ledger lookup runs on its own connection while the controls script is in flight.
      const reputation = deps.scorer.reputation(checked, principal);

      const admission = await deps.controls.admit(principal, req.get('idempotency-key'), req.body);
      res.set(admission.headers).type('application/json');
      if (admission.kind === 'replay') {
        res.send(admission.body);
        return;
      }
      try {
        const { body, durable } = deps.scorer.score(checked, principal, startedAt, await reputation);
        // Never a 200 whose audit record a crash could lose: Kafka acknowledged it or the journal
        // fsynced it. Only then is the answer stored for replays of its Idempotency-Key: stored
        // earlier, a node killed in between left a replayable 200 whose record died with it (the
        // fault bench's retries on the other node got such 200s, never found in ClickHouse).
        await durable;
        await admission.commit(body);
        res.send(body);
      } catch (err) {
        await admission.release();
        throw err;
      }
    })
    .all(methodNotAllowed(['POST']));
  return router;
}
