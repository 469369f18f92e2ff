/**
 * The contract of POST /v1/outcomes: a caller reports what happened to a subject it scored. The
 * schemas here validate requests and generate the OpenAPI document, like request.ts for scoring.
 */
import { z } from 'zod';
import { OUTCOME_ID_PATTERN, SCORE_ID_PATTERN } from '../ids.ts';
import { CLIENT_REFERENCE_MAX, Subject } from './request.ts';
import { storableText } from './storable-text.ts';

export const OUTCOME_KINDS = [
  'confirmed_fraud',
  'chargeback',
  'suspected_fraud',
  'spam_or_abuse',
  'not_fraud',
] as const;
export type OutcomeKind = (typeof OUTCOME_KINDS)[number];

/** Outcomes that count as a report against the subject in the reputation ledger. */
export const LEDGER_REPORT_KINDS: ReadonlySet<OutcomeKind> = new Set([
  'confirmed_fraud',
  'chargeback',
  'spam_or_abuse',
]);

export const NOTE_MAX = 1024;
/** A caller's clock may run a little ahead of ours; `occurred_at` up to this far ahead is accepted. */
export const OCCURRED_AT_SKEW_MS = 60_000;
/**
 * How far back `occurred_at` may lie: as far back as outcomes are kept (13 months,
 * infra/clickhouse/migrations/005_outcomes.sql). A report about something older than anything
 * kept is a caller's mistake, and before 1970 ClickHouse's DateTime cannot store it at all (the
 * sink dead-lettered such records after the 202).
 */
export const OCCURRED_AT_MAX_AGE_MONTHS = 13;

/** The earliest `occurred_at` accepted at `nowMs`: the same instant, OCCURRED_AT_MAX_AGE_MONTHS back. */
export function earliestOccurredAt(nowMs: number = Date.now()): number {
  const d = new Date(nowMs);
  d.setUTCMonth(d.getUTCMonth() - OCCURRED_AT_MAX_AGE_MONTHS);
  return d.getTime();
}

export const OutcomeRequest = z
  .strictObject({
    score_id: z
      .string()
      .regex(SCORE_ID_PATTERN, 'must be a score id: sc_ followed by 32 lowercase hex digits')
      .optional()
      .meta({
        description:
          "The score the outcome is about. Its subject is the outcome's subject (a `subject` sent too is " +
          "ignored). Unknown, another organisation's, or past retention: 404 `E_SCORE_NOT_FOUND`.",
        examples: ['sc_019a4f0e6b3c7d2e8f1a2b3c4d5e6f70'],
      }),
    subject: Subject.optional().meta({
      description: 'The subject the outcome is about, when there is no `score_id`.',
    }),
    outcome: z.enum(OUTCOME_KINDS).meta({
      description:
        '`confirmed_fraud`, `chargeback` and `spam_or_abuse` count as a report against the subject in the ' +
        'reputation ledger (one per organisation); a later `not_fraud` from the same organisation withdraws ' +
        'it; `suspected_fraud` is kept for analysis and does not count.',
    }),
    occurred_at: z.iso
      .datetime({ offset: true })
      // Not a timestamp at all is the format check's violation alone (NaN compares false).
      .refine((v) => !(Date.parse(v) > Date.now() + OCCURRED_AT_SKEW_MS), 'must not be in the future')
      .refine(
        (v) => !(Date.parse(v) < earliestOccurredAt()),
        `must not be more than ${OCCURRED_AT_MAX_AGE_MONTHS} months ago`,
      )
      .optional()
      .meta({
        description:
          `When it happened (RFC 3339): within the last ${OCCURRED_AT_MAX_AGE_MONTHS} months and not in the ` +
          'future (a caller clock up to a minute ahead is tolerated); outside that, 422. Defaults to when it ' +
          'was received.',
        examples: ['2026-11-20T14:03:00Z'],
      }),
    note: storableText({ max: NOTE_MAX })
      .optional()
      .meta({ description: 'Free text for your analysts; stored with the outcome.' }),
    client_reference: storableText({ max: CLIENT_REFERENCE_MAX })
      .optional()
      .meta({ description: 'Your reference for the case, stored with the outcome.' }),
  })
  .refine((o) => typeof o !== 'object' || o === null || o.score_id !== undefined || o.subject !== undefined, {
    message: 'an outcome needs a score_id or a subject',
    when: (payload) => typeof payload.value === 'object' && payload.value !== null,
  })
  .meta({
    id: 'OutcomeRequest',
    description: 'What happened to a subject: a score_id, a subject, or both.',
    // The refine above, for readers of the document: at least one of the two.
    anyOf: [{ required: ['score_id'] }, { required: ['subject'] }],
  });

export type OutcomeRequest = z.infer<typeof OutcomeRequest>;

export const OutcomeAccepted = z
  .object({
    outcome_id: z
      .string()
      .regex(OUTCOME_ID_PATTERN)
      .meta({ description: '`oc_` + 32 lowercase hex (a UUIDv7: ids sort by receipt time).' }),
    received_at: z.string().meta({ description: 'When the outcome was received (RFC 3339, UTC).' }),
  })
  .meta({
    id: 'OutcomeAccepted',
    examples: [
      { outcome_id: 'oc_019aa3c4d2e87a1b9c0d1e2f3a4b5c6d', received_at: '2026-11-22T18:04:05.123Z' },
    ],
  });

export type OutcomeAccepted = z.infer<typeof OutcomeAccepted>;
