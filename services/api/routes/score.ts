import { EXAMPLE_RESPONSE } from '../../../shared/contract/openapi.ts';
import { JSON_BODY_REFUSALS } from '../../../shared/contract/openapi-responses.ts';
import { json } from '../../../shared/contract/operation.ts';
import { ScoreRequest } from '../../../shared/contract/request.ts';
import { ScoreResponse } from '../../../shared/contract/response.ts';
import type { AdmissionControl } from '../controls/controls.ts';
import { defineRoute } from '../http/route.ts';
import { sendJsonText, setHeaders } from '../http/send-json.ts';
import { checkScoreRequest } from '../score-request.ts';
import type { Scorer } from '../scorer.ts';

export interface ScoreRouteDeps {
  scorer: Scorer;
  controls: AdmissionControl;
}

/** POST /v1/score. Order of checks: authenticate, validate, controls (rate, credits, idempotency), score. */
export const scoreRoute = defineRoute({
  method: 'post',
  path: '/v1/score',
  operationId: 'score',
  tags: ['scoring'],
  summary: 'Score a phone number, an IP address, or both',
  description:
    'Order of checks: authenticate, validate (422, then 403 for options the tier lacks, then 409 for a ' +
    'retired shadow version), rate limit, credits, idempotency, score. Refused requests are never billed.',
  auth: 'bearer',
  idempotencyKey:
    'Per organisation, kept 24 hours. Same key and body: the first 200 is replayed with ' +
    '`Idempotent-Replayed: true`. Same key, other body: 409. Empty, over 128 characters or not visible ASCII ' +
    '(0x21-0x7E): 422.',
  body: {
    schema: ScoreRequest,
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
  responses: {
    200: {
      description: 'Scored (also when some sources answered on reduced evidence; see `degraded_sources`).',
      headers: [
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-Credits-Remaining',
        'Idempotent-Replayed',
        'Idempotency-Status',
      ],
      body: json(ScoreResponse, { assess: { value: EXAMPLE_RESPONSE } }),
    },
  },
  errors: [...JSON_BODY_REFUSALS, 'CreditsExhausted', 'EntitlementRequired'],
  handler:
    (deps: ScoreRouteDeps) =>
    async ({ principal, body, idempotencyKey, startedAt }, res, req) => {
      const checked = checkScoreRequest(body, idempotencyKey, principal.org, (id) =>
        deps.scorer.versionState().status.get(id),
      );
      // The live ledger lookup runs on its own connection while the controls script is in flight.
      const reputation = deps.scorer.reputation(checked, principal);

      // An Idempotency-Key is bound to the body as sent, not to the schema's parse of it.
      const admission = await deps.controls.admit(principal, idempotencyKey, req.body);
      setHeaders(res, admission.headers);
      if (admission.kind === 'replay') {
        sendJsonText(res, admission.body);
        return;
      }
      try {
        const { body: answer, durable } = deps.scorer.score(checked, principal, startedAt, await reputation);
        // Never a 200 whose audit record a crash could lose: Kafka acknowledged it or the journal
        // fsynced it. Only then is the answer stored for replays of its Idempotency-Key: stored
        // earlier, a node killed in between left a replayable 200 whose record died with it (the
        // fault bench's retries on the other node got such 200s, never found in ClickHouse).
        await durable;
        await admission.commit(answer);
        sendJsonText(res, answer);
      } catch (err) {
        await admission.release();
        throw err;
      }
    },
});
