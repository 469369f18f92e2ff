import { describe, expect, it } from 'vitest';
import { AuditRecord, AuditRecordEnvelope, serializeAuditRecord } from '../../shared/audit/record.ts';
import type { ScoreRequest } from '../../shared/contract/request.ts';
import { shapeResponse } from '../../shared/contract/shape.ts';
import { score } from '../../shared/scoring/engine.ts';
import { gatherEvidence } from '../../shared/scoring/evidence.ts';
import { DEFAULT_VERSION } from '../../shared/scoring/versions.ts';
import { auditMeta, evidenceGaps, reputationReports, requestAsSent, type AuditParts } from './scorer.ts';

const REQUEST: ScoreRequest = {
  subject: { phone_number: '+447911123456', ip_address: '81.2.69.142' },
  client_reference: 'ref-1',
  options: { explain: false },
};
const SCORE_ID = 'sc_0192f0c4a1b27000800000000000abcd';
const NOW = Date.UTC(2026, 10, 27, 16, 12, 5, 902);
const scored = score({ evidence: gatherEvidence(REQUEST.subject, {}), version: DEFAULT_VERSION });
const parts: AuditParts = {
  scoreId: SCORE_ID,
  nowMs: NOW,
  nodeId: 'n1',
  org: { org_id: 'org_0123456789abcdef', tier: 'bureau', entitlements: [] },
  latencyMs: 3,
  request: REQUEST,
  scored,
  reputation: undefined,
  challenger: undefined,
  digest: undefined,
};

describe('which capabilities the evidence lacks', () => {
  const cap = (name: string, over: object = {}) => ({
    name: name as never,
    stale: false,
    status: 'ok' as const,
    marksEvidenceUnavailable: true,
    ...over,
  });

  it('marks unavailable only the capabilities whose absence is no evidence; names the degraded ones', () => {
    const gaps = evidenceGaps([
      cap('caller_id_integrity', { status: 'unavailable' }),
      cap('reputation_ledger', { status: 'unavailable', marksEvidenceUnavailable: false }),
      cap('ip_tor_exit', { status: 'degraded' }),
      cap('ndc_range_risk'),
    ]);
    expect([...gaps.unavailable]).toEqual(['caller_id_integrity']);
    expect(gaps.degraded).toEqual(['ip_tor_exit']);
    expect([...gaps.stale]).toEqual([]);
  });

  it('says when the network tables are stale, and lists every stale capability', () => {
    const gaps = evidenceGaps([cap('ip_network_type', { stale: true }), cap('ip_tor_exit', { stale: true })]);
    expect(gaps.networksStale).toBe(true);
    expect([...gaps.stale]).toEqual(['ip_network_type', 'ip_tor_exit']);
    expect(evidenceGaps([cap('ip_tor_exit', { stale: true })]).networksStale).toBe(false);
  });
});

describe("the audit record's parts", () => {
  it('keeps the request as sent: no member the caller did not send', () => {
    expect(requestAsSent(REQUEST)).toEqual(REQUEST);
    expect(Object.keys(requestAsSent({ subject: { ip_address: '81.2.69.142' } }))).toEqual(['subject']);
  });

  it('counts ledger reports where the ledger answered, split by where they came from', () => {
    expect(reputationReports(undefined)).toEqual({});
    expect(reputationReports('unavailable')).toEqual({});
    expect(reputationReports({ reports: 5, outcomeReports: 2, ownReport: true })).toEqual({
      reputation: { reports: 5, feed_reports: 3, outcome_reports: 2, own_report: true },
    });
  });

  it('names the challenger and the request digest only when there is one', () => {
    const plain = auditMeta(parts);
    expect(plain).not.toHaveProperty('challenger');
    expect(plain).not.toHaveProperty('request_digest');
    const full = auditMeta({
      ...parts,
      challenger: { id: '2026.08.0', scored },
      digest: 'a'.repeat(64),
    });
    expect(full.challenger).toEqual({
      score_version: '2026.08.0',
      score: scored.score,
      band: scored.band,
      raw_risk: scored.raw,
    });
    expect(full.request_digest).toBe('a'.repeat(64));
  });

  it('makes a record that both the full schema and the sink envelope decode, request typed', () => {
    const response = shapeResponse({
      scoreId: SCORE_ID,
      tier: 'bureau',
      versionId: DEFAULT_VERSION.id,
      scored,
      explain: true,
      latencyMs: 3,
    });
    const json = JSON.parse(serializeAuditRecord(auditMeta(parts), JSON.stringify(response))) as unknown;
    expect(AuditRecord.parse(json).request).toEqual(REQUEST);
    expect(AuditRecordEnvelope.parse(json).request.subject.phone_number).toBe('+447911123456');
  });
});
