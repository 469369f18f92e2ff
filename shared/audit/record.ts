import { z } from 'zod';
import { SCORE_ID_PATTERN } from '../ids.ts';
import { Component, ReputationReports, ScoreResponse, SubjectResolution } from '../contract/response.ts';
import { ACTIONS, BANDS, CONTEXT_EFFECTS, COVERAGES, TIERS } from '../vocabulary/score-terms.ts';
import { LOOKUP_OUTCOMES, PHONE_LOOKUP_PROVIDERS } from '../capabilities/phone-live-lookup/result.ts';

/**
 * Version of the audit envelope; bump it with a new schema and keep decoding the old ones. Optional
 * fields added since (the score-quality ones, `request_digest`, `context_effect`) leave it at 1: a
 * record without them still decodes, and a sink not yet upgraded drops them instead of
 * dead-lettering the record.
 */
export const AUDIT_RECORD_VERSION = 1;

export const AuditEvidence = z.object({
  components: z.array(Component),
  subject: SubjectResolution.optional(),
  primary_risk_factor: z.object({ code: z.string(), narrative: z.string().optional() }).optional(),
  benign_exclusions: z.array(z.string()).optional(),
  reputation: ReputationReports.optional(),
});

/**
 * What calibration and version comparison read (absent from records made before 2026.12.0):
 * the raw risk under the scoring version, the reason codes of the components that found risk,
 * and the silent challenger's score and band when one was set.
 */
const ScoreQuality = {
  raw_risk: z.number().nonnegative().optional(),
  fired_components: z.array(z.string()).optional(),
  challenger: z
    .object({
      score_version: z.string(),
      score: z.int().min(0).max(100),
      band: z.enum(BANDS),
      raw_risk: z.number().nonnegative(),
    })
    .optional(),
};

/**
 * The request's identity across retries: the digest of its organisation and Idempotency-Key
 * (request-digest.ts); absent when it was sent without one, and in records older than the field.
 * A retry of the same key on another node scores again when the first node died before its answer
 * left; the data-team rule (docs/data.md "One row per answer") counts one score per digest.
 */
const RequestIdentity = {
  request_digest: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
};

/**
 * What a band depends on that the response does not say for every tier: the request context's
 * effect before gates (engine.ts contextEffect). `context_applied` reports it to `assess` and
 * `bureau` only, and says `none` where a gate or the band's end stopped the shift, which another
 * version may not; the backtest replays with this. Absent without a context, and in records older
 * than the field.
 */
const ContextRecord = {
  context_effect: z.enum(CONTEXT_EFFECTS).optional(),
};

/**
 * What the live phone lookup did for this score (services/api/capabilities/phone-lookup.ts): the
 * provider and the outcome (result.ts LOOKUP_OUTCOMES), for the cost counts in ClickHouse
 * (migration 013). Absent when no lookup was tried (no provider, no number, not opted in), and in
 * records older than the field.
 */
const LookupRecord = {
  phone_lookup: z
    .object({ provider: z.enum(PHONE_LOOKUP_PROVIDERS), outcome: z.enum(LOOKUP_OUTCOMES) })
    .optional(),
};

/** The sink's check of it: any short text, so a provider or outcome added later is no dead letter. */
const LookupEnvelope = {
  phone_lookup: z.object({ provider: z.string().max(32), outcome: z.string().max(32) }).optional(),
};

/**
 * The request as the caller sent it (never the key, which travels in a header): the shape of the
 * contract's ScoreRequest without its checks. The API validated it before scoring, and a record
 * made under an older, looser rule must still decode. Members this schema does not name are kept,
 * so `request_json` stays the request as sent. The publisher builds it (services/api/scorer.ts
 * `requestAsSent`), the sink and the Activity feed read the subject from it.
 */
export const AuditRequest = z.looseObject({
  // The contract's Subject is strict: these are all its members.
  subject: z.object({ phone_number: z.string().optional(), ip_address: z.string().optional() }),
  context_id: z.string().optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  options: z.record(z.string(), z.unknown()).optional(),
  client_reference: z.string().optional(),
});

export type AuditRequest = z.infer<typeof AuditRequest>;

/**
 * One record on `scores.v1` per 200 from POST /v1/score: the request as sent (never the key),
 * the response exactly as returned, and the full tier-permitted evidence.
 */
export const AuditRecord = z.object({
  v: z.literal(AUDIT_RECORD_VERSION),
  score_id: z.string().regex(SCORE_ID_PATTERN),
  org_id: z.string().min(1),
  tier: z.enum(TIERS),
  scored_at: z.iso.datetime(),
  scored_at_ms: z.int().nonnegative(),
  node_id: z.string(),
  latency_ms: z.int().nonnegative(),
  request: AuditRequest,
  response: ScoreResponse,
  evidence: AuditEvidence,
  ...ScoreQuality,
  ...RequestIdentity,
  ...ContextRecord,
  ...LookupRecord,
});

export type AuditRecord = z.infer<typeof AuditRecord>;

/**
 * What the audit sink checks before writing a row: the envelope and every field a column is
 * made of. The API built the record from the full schemas already; re-validating each nested
 * component per record cost the sink more CPU than the insert.
 */
export const AuditRecordEnvelope = z.object({
  v: z.literal(AUDIT_RECORD_VERSION),
  score_id: z.string().regex(SCORE_ID_PATTERN),
  org_id: z.string().min(1),
  tier: z.enum(TIERS),
  scored_at_ms: z.int().nonnegative(),
  node_id: z.string(),
  latency_ms: z.int().nonnegative(),
  request: AuditRequest,
  response: z.looseObject({
    score_version: z.string(),
    score: z.int().min(0).max(100),
    band: z.enum(BANDS),
    recommended_action: z.enum(ACTIONS),
    coverage: z.enum(COVERAGES).optional(),
    degraded_sources: z.array(z.string()),
    client_reference: z.string().optional(),
  }),
  evidence: z.looseObject({
    primary_risk_factor: z.looseObject({ code: z.string() }).optional(),
  }),
  ...ScoreQuality,
  ...RequestIdentity,
  ...ContextRecord,
  ...LookupEnvelope,
});

export type AuditRecordEnvelope = z.infer<typeof AuditRecordEnvelope>;
export type AuditEvidence = z.infer<typeof AuditEvidence>;

/**
 * The record as one JSON string, built around the response's JSON exactly as it was sent to the
 * caller: the response is serialized once per request, and the stored copy is byte-identical to
 * what the caller received.
 */
export function serializeAuditRecord(meta: Omit<AuditRecord, 'response'>, responseJson: string): string {
  const head = JSON.stringify(meta);
  return `${head.slice(0, -1)},"response":${responseJson}}`;
}
