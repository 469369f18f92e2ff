import { EXAMPLE_RESPONSE } from '../../../shared/contract/openapi.ts';
import { JSON_BODY_REFUSALS } from '../../../shared/contract/openapi-responses.ts';
import { json } from '../../../shared/contract/operation.ts';
import { OutcomeAccepted, OutcomeRequest } from '../../../shared/contract/outcome.ts';
import type { AdmissionControl } from '../controls/controls.ts';
import { defineRoute } from '../http/route.ts';
import type { OutcomeRecorder } from '../outcome-recorder.ts';

export interface OutcomeRouteDeps {
  controls: AdmissionControl;
  outcomes: OutcomeRecorder;
}

/**
 * POST /v1/outcomes, every tier. Order of checks as for scoring: authenticate, validate (422),
 * rate limit (a window of its own), idempotency, then the referenced score (404). Never billed.
 * A refusal after admission (404, 503) frees the Idempotency-Key again.
 */
export const outcomeRoute = defineRoute({
  method: 'post',
  path: '/v1/outcomes',
  operationId: 'reportOutcome',
  tags: ['outcomes'],
  summary: 'Report what happened: fraud confirmed, a chargeback, abuse, or not fraud',
  description:
    "Every tier; never billed. Order of checks: authenticate, validate, rate limit (the tier's rate in a " +
    'window of its own, separate from scoring), idempotency, the referenced score (404). Each accepted ' +
    'outcome is streamed and stored for 13 months; `confirmed_fraud`, `chargeback` and `spam_or_abuse` ' +
    'count as one report per organisation against the subject in the reputation ledger within seconds, ' +
    'and a later `not_fraud` from the same organisation withdraws it.',
  auth: 'bearer',
  idempotencyKey:
    'Per organisation, kept 24 hours, separate from the keys of scoring. Same key and body: the ' +
    'first 202 is replayed with `Idempotent-Replayed: true`. Same key, other body: 409. Empty, ' +
    'over 128 characters or not visible ASCII (0x21-0x7E): 422.',
  body: {
    schema: OutcomeRequest,
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
  responses: {
    202: {
      description: 'Accepted: streamed and stored, and applied to the reputation ledger within seconds.',
      headers: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'Idempotent-Replayed'],
      body: json(OutcomeAccepted, {
        accepted: {
          value: {
            outcome_id: 'oc_019aa3c4d2e87a1b9c0d1e2f3a4b5c6d',
            received_at: '2026-11-22T18:04:05.123Z',
          },
        },
      }),
    },
  },
  // 503 only for a score_id no longer in the cache Redis, read from ClickHouse.
  errors: [...JSON_BODY_REFUSALS, 'ScoreNotFound', 'HistoryUnavailable'],
  handler:
    (deps: OutcomeRouteDeps) =>
    async ({ principal, body, idempotencyKey }, res, req) => {
      // An Idempotency-Key is bound to the body as sent, not to the schema's parse of it.
      const admission = await deps.controls.admit(principal, idempotencyKey, req.body, 'outcomes');
      res.set(admission.headers).type('application/json').status(202);
      if (admission.kind === 'replay') {
        res.send(admission.body);
        return;
      }
      let answer: string;
      try {
        answer = await deps.outcomes.record(body, principal);
      } catch (err) {
        await admission.release();
        throw err;
      }
      await admission.commit(answer);
      res.send(answer);
    },
});
