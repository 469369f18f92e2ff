import { Router } from 'express';
import {
  EXAMPLE_RESPONSE,
  headerRefs,
  JSON_BODY_REFUSALS,
  responseRef as r,
  schemaRef,
} from '../../../shared/contract/openapi.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../../../shared/contract/request.ts';
import { ApiError } from '../../../shared/contract/errors.ts';
import { validateOutcomeRequest } from '../../../shared/contract/validation.ts';
import { idempotencyKeyOf, validatedKey } from '../http/idempotency-key.ts';
import type { Authenticator, Principal } from '../auth.ts';
import type { AdmissionControl } from '../controls/controls.ts';
import type { CallerBudget } from '../http/caller-budget.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { jsonBody } from '../http/json-body.ts';
import { operation } from '../http/operation.ts';
import type { OutcomeRecorder } from '../outcome-recorder.ts';

export interface OutcomeRouteDeps {
  auth: Authenticator;
  budget: CallerBudget;
  controls: AdmissionControl;
  outcomes: OutcomeRecorder;
}

/** POST /v1/outcomes in the OpenAPI document. */
export const outcomeOperation = operation('post', '/v1/outcomes', {
  operationId: 'reportOutcome',
  tags: ['outcomes'],
  summary: 'Report what happened: fraud confirmed, a chargeback, abuse, or not fraud',
  description:
    "Every tier; never billed. Order of checks: authenticate, validate, rate limit (the tier's rate in a " +
    'window of its own, separate from scoring), idempotency, the referenced score (404). Each accepted ' +
    'outcome is streamed and stored for 13 months; `confirmed_fraud`, `chargeback` and `spam_or_abuse` ' +
    'count as one report per organisation against the subject in the reputation ledger within seconds, ' +
    'and a later `not_fraud` from the same organisation withdraws it.',
  parameters: [
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Per organisation, kept 24 hours, separate from the keys of scoring. Same key and body: the ' +
        'first 202 is replayed with `Idempotent-Replayed: true`. Same key, other body: 409. Empty, ' +
        'over 128 characters or not visible ASCII (0x21-0x7E): 422.',
      schema: { type: 'string', minLength: 1, maxLength: 128, pattern: IDEMPOTENCY_KEY_PATTERN.source },
    },
  ],
  requestBody: {
    required: true,
    content: {
      'application/json': {
        schema: schemaRef('OutcomeRequest'),
        examples: {
          byScore: {
            summary: 'About a score',
            value: {
              score_id: EXAMPLE_RESPONSE.score_id,
              outcome: 'confirmed_fraud',
              occurred_at: '2026-11-20T14:03:00Z',
              note: 'caller asked for a SIM swap, account drained next day',
              client_reference: 'case-5512',
            },
          },
          bySubject: {
            summary: 'About a subject',
            value: { subject: { phone_number: '+447911123456' }, outcome: 'not_fraud' },
          },
        },
      },
    },
  },
  responses: {
    '202': {
      description: 'Accepted: streamed and stored, and applied to the reputation ledger within seconds.',
      headers: headerRefs(
        'X-Request-Id',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'Idempotent-Replayed',
      ),
      content: {
        'application/json': {
          schema: schemaRef('OutcomeAccepted'),
          examples: {
            accepted: {
              value: {
                outcome_id: 'oc_019aa3c4d2e87a1b9c0d1e2f3a4b5c6d',
                received_at: '2026-11-22T18:04:05.123Z',
              },
            },
          },
        },
      },
    },
    ...JSON_BODY_REFUSALS,
    '404': r('ScoreNotFound'),
    // Only for a score_id no longer in the cache Redis, read from ClickHouse.
    '503': r('HistoryUnavailable'),
  },
});

/**
 * POST /v1/outcomes, every tier. Order of checks as for scoring: authenticate, validate (422),
 * rate limit (a window of its own), idempotency, then the referenced score (404). Never billed.
 * A refusal after admission (404, 503) frees the Idempotency-Key again.
 */
export function outcomeRoutes(deps: OutcomeRouteDeps): Router {
  const router = Router();
  router
    .route(outcomeOperation.expressPath)
    .post(deps.auth.middleware(), deps.budget.organisation, jsonBody, async (req, res) => {
      const principal = res.locals.principal as Principal;
      const idempotencyKey = idempotencyKeyOf(req);
      const validated = validateOutcomeRequest(req.body, idempotencyKey);
      if (!validated.ok) throw new ApiError(422, validated.errors);

      const admission = await deps.controls.admit(
        principal,
        validatedKey(idempotencyKey),
        req.body,
        'outcomes',
      );
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
