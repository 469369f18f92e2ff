import { Router } from 'express';
import {
  EXAMPLE_RESPONSE,
  headerRefs,
  JSON_BODY_REFUSALS,
  responseRef as r,
  schemaRef,
} from '../../../shared/contract/openapi.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../../../shared/contract/request.ts';
import type { Authenticator, Principal } from '../auth.ts';
import type { AdmissionControl } from '../controls/controls.ts';
import type { CallerBudget } from '../http/caller-budget.ts';
import { jsonBody } from '../http/json-body.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { sendJsonText, setHeaders } from '../http/send-json.ts';
import { operation } from '../http/operation.ts';
import { checkScoreRequest } from '../score-request.ts';
import { idempotencyKeyOf, validatedKey } from '../http/idempotency-key.ts';
import type { Scorer } from '../scorer.ts';

export interface ScoreRouteDeps {
  auth: Authenticator;
  budget: CallerBudget;
  scorer: Scorer;
  controls: AdmissionControl;
}

/** POST /v1/score in the OpenAPI document. */
export const scoreOperation = operation('post', '/v1/score', {
  operationId: 'score',
  tags: ['scoring'],
  summary: 'Score a phone number, an IP address, or both',
  description:
    'Order of checks: authenticate, validate (422, then 403 for options the tier lacks, then 409 for a ' +
    'retired shadow version), rate limit, credits, idempotency, score. Refused requests are never billed.',
  parameters: [
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Per organisation, kept 24 hours. Same key and body: the first 200 is replayed with ' +
        '`Idempotent-Replayed: true`. Same key, other body: 409. Empty, over 128 characters or not visible ASCII ' +
        '(0x21-0x7E): 422.',
      schema: { type: 'string', minLength: 1, maxLength: 128, pattern: IDEMPOTENCY_KEY_PATTERN.source },
    },
  ],
  requestBody: {
    required: true,
    content: {
      'application/json': {
        schema: schemaRef('ScoreRequest'),
        examples: {
          phone: { summary: 'Caller ID only', value: { subject: { phone_number: '+447911123456' } } },
          full: {
            summary: 'Both, with a context',
            value: {
              subject: { phone_number: '+447911123456', ip_address: '81.2.69.142' },
              context: {
                sector: 'remittance',
                geography: { operating_countries: ['GB'], diaspora_corridors: ['NG'] },
                collection_point: { channel: 'voice_call_centre', direction: 'inbound', moment: 'payment' },
                risk_posture: 'balanced',
              },
              client_reference: 'call-7731',
              options: { explain: true, max_latency_ms: 150 },
            },
          },
        },
      },
    },
  },
  responses: {
    '200': {
      description: 'Scored (also when some sources answered on reduced evidence; see `degraded_sources`).',
      headers: headerRefs(
        'X-Request-Id',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-Credits-Remaining',
        'Idempotent-Replayed',
        'Idempotency-Status',
      ),
      content: {
        'application/json': {
          schema: schemaRef('ScoreResponse'),
          examples: { assess: { value: EXAMPLE_RESPONSE } },
        },
      },
    },
    ...JSON_BODY_REFUSALS,
    '402': r('CreditsExhausted'),
    '403': r('EntitlementRequired'),
  },
});

/** POST /v1/score. Order of checks: authenticate, validate, controls (rate, credits, idempotency), score. */
export function scoreRoutes(deps: ScoreRouteDeps): Router {
  const router = Router();
  router
    .route(scoreOperation.expressPath)
    .post(deps.auth.middleware(), deps.budget.organisation, jsonBody, async (req, res) => {
      const startedAt = performance.now();
      const principal = res.locals.principal as Principal;
      const idempotencyKey = idempotencyKeyOf(req);
      const checked = checkScoreRequest(req.body, idempotencyKey, principal.org, (id) =>
        deps.scorer.versionState().status.get(id),
      );
      // The live ledger lookup runs on its own connection while the controls script is in flight.
      const reputation = deps.scorer.reputation(checked, principal);

      const admission = await deps.controls.admit(principal, validatedKey(idempotencyKey), req.body);
      setHeaders(res, admission.headers);
      if (admission.kind === 'replay') {
        sendJsonText(res, admission.body);
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
        sendJsonText(res, body);
      } catch (err) {
        await admission.release();
        throw err;
      }
    })
    .all(methodNotAllowed(['POST']));
  return router;
}
