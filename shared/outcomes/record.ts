import { z } from 'zod';
import { OUTCOME_KINDS } from '../contract/outcome.ts';
import { OUTCOME_ID_PATTERN, SCORE_ID_PATTERN } from '../ids.ts';

/** Version of the outcome envelope; bump it with a new schema and keep decoding the old ones. */
export const OUTCOME_RECORD_VERSION = 1;

/**
 * One record on `outcomes.v1` per 202 from POST /v1/outcomes. `subject` is the one the outcome is
 * about: the referenced score's subject when a `score_id` was sent, else the subject sent.
 * `request` is the body as sent.
 */
export const OutcomeRecord = z.object({
  v: z.literal(OUTCOME_RECORD_VERSION),
  outcome_id: z.string().regex(OUTCOME_ID_PATTERN),
  org_id: z.string().min(1),
  received_at_ms: z.int().nonnegative(),
  occurred_at_ms: z.int().nonnegative(),
  outcome: z.enum(OUTCOME_KINDS),
  score_id: z.string().regex(SCORE_ID_PATTERN).optional(),
  subject: z.object({ phone_number: z.string().optional(), ip_address: z.string().optional() }),
  node_id: z.string(),
  request: z.record(z.string(), z.unknown()),
});

export type OutcomeRecord = z.infer<typeof OutcomeRecord>;

/** The row of `outcomes` a record becomes (column comments live in migration 005). */
export function toOutcomeRow(r: OutcomeRecord) {
  const req = r.request as { note?: unknown; client_reference?: unknown };
  return {
    outcome_id: r.outcome_id,
    org_id: r.org_id,
    received_at: Math.floor(r.received_at_ms / 1000),
    received_at_ms: r.received_at_ms,
    occurred_at: Math.floor(r.occurred_at_ms / 1000),
    outcome: r.outcome,
    score_id: r.score_id ?? '',
    phone_number: r.subject.phone_number ?? '',
    ip_address: r.subject.ip_address ?? '',
    note: typeof req.note === 'string' ? req.note : '',
    client_reference: typeof req.client_reference === 'string' ? req.client_reference : '',
    node_id: r.node_id,
    record_version: r.v,
    request_json: JSON.stringify(r.request),
  };
}
