import { Router } from 'express';
import { ApiError } from '../../../shared/contract/errors.ts';
import { validateOutcomeRequest } from '../../../shared/contract/validation.ts';
import type { Authenticator, Principal } from '../auth.ts';
import type { AdmissionControl } from '../controls/controls.ts';
import type { CallerBudget } from '../http/caller-budget.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { jsonBody } from '../http/json-body.ts';
import type { OutcomeRecorder } from '../outcome-recorder.ts';

export interface OutcomeRouteDeps {
  auth: Authenticator;
  budget: CallerBudget;
  controls: AdmissionControl;
  outcomes: OutcomeRecorder;
}

/**
 * POST /v1/outcomes, every tier. Order of checks as for scoring: authenticate, validate (422),
 * rate limit (a window of its own), idempotency, then the referenced score (404). Never billed.
 * A refusal after admission (404, 503) frees the Idempotency-Key again.
 */
export function outcomeRoutes(deps: OutcomeRouteDeps): Router {
  const router = Router();
  router
    .route('/v1/outcomes')
    .post(deps.auth.middleware(), deps.budget.organisation, jsonBody, async (req, res) => {
      const principal = res.locals.principal as Principal;
      const idempotencyKey = req.get('idempotency-key');
      const validated = validateOutcomeRequest(req.body, idempotencyKey);
      if (!validated.ok) throw new ApiError(422, validated.errors);

      const admission = await deps.controls.admit(principal, idempotencyKey, req.body, 'outcomes');
      res.set(admission.headers).type('application/json').status(202);
      if (admission.kind === 'replay') {
        res.send(admission.body);
        return;
      }
      let body: string;
      try {
        body = await deps.outcomes.record(validated.request, principal);
      } catch (err) {
        await admission.release();
        throw err;
      }
      await admission.commit(body);
      res.send(body);
    })
    .all(methodNotAllowed(['POST']));
  return router;
}
