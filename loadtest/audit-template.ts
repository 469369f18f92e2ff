/**
 * A real-sized audit record for the sink bench, scored in-process as an API node scores one:
 * evidence from the packaged resolution data, the live version and a challenger, the bureau
 * tier's response, serialized by the API's own serializer and checked against the record schema.
 * Built here rather than read back from a copy the API stored somewhere (the explain cache, say),
 * so no cap or TTL on such a copy can leave the bench without a template.
 */
import { AuditRecord, serializeAuditRecord } from '../shared/audit/record.ts';
import { validateScoreRequest } from '../shared/contract/validation.ts';
import { newScoreId } from '../shared/ids.ts';
import { loadResolutionData } from '../shared/resolution/resolution-data.ts';
import { score } from '../shared/scoring/engine.ts';
import { gatherEvidence } from '../shared/scoring/evidence.ts';
import { shapeResponse } from '../shared/contract/shape.ts';
import { tierEvidence } from '../shared/scoring/tier-evidence.ts';
import { DEFAULT_VERSION, SCORE_VERSIONS } from '../shared/scoring/versions.ts';

const REQUEST = {
  subject: { phone_number: '+447911123456', ip_address: '81.2.69.142' },
  context: {
    sector: 'remittance',
    geography: { operating_countries: ['GB'], diaspora_corridors: ['NG'] },
    collection_point: { channel: 'voice_call_centre', direction: 'inbound', moment: 'payment' },
  },
  client_reference: 'bench-template',
};

/** One bureau score's audit record, parsed (a schema drift fails here, before any load is sent). */
export function auditRecordTemplate(orgId: string): AuditRecord {
  const checked = validateScoreRequest(REQUEST, undefined);
  if (!checked.ok) throw new Error(`the template request is invalid: ${JSON.stringify(checked)}`);
  const evidence = gatherEvidence(REQUEST.subject, loadResolutionData(), { reports: 0 });
  const input = { evidence, context: checked.request.context };
  const scored = score({ ...input, version: DEFAULT_VERSION });
  const challenger = SCORE_VERSIONS.find((v) => v.id !== DEFAULT_VERSION.id) ?? DEFAULT_VERSION;
  const challengerScored = score({ ...input, version: challenger });
  const ms = Date.now();
  const scoreId = newScoreId(ms);
  const response = shapeResponse({
    scoreId,
    tier: 'bureau',
    versionId: DEFAULT_VERSION.id,
    scored,
    explain: true,
    clientReference: REQUEST.client_reference,
    latencyMs: 1,
  });
  const json = serializeAuditRecord(
    {
      v: 1,
      score_id: scoreId,
      org_id: orgId,
      tier: 'bureau',
      scored_at: new Date(ms).toISOString(),
      scored_at_ms: ms,
      node_id: 'bench-template',
      latency_ms: 1,
      request: checked.request,
      evidence: {
        ...tierEvidence(scored, 'bureau'),
        reputation: { reports: 0, feed_reports: 0, outcome_reports: 0 },
      },
      raw_risk: scored.raw,
      fired_components: scored.fired,
      ...(scored.context_effect !== undefined && { context_effect: scored.context_effect }),
      challenger: {
        score_version: challenger.id,
        score: challengerScored.score,
        band: challengerScored.band,
        raw_risk: challengerScored.raw,
      },
    },
    JSON.stringify(response),
  );
  return AuditRecord.parse(JSON.parse(json));
}
