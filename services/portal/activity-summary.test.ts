import { describe, expect, it } from 'vitest';
import { serializeAuditRecord } from '../../shared/audit/record.ts';
import { projectScore } from './activity-summary.ts';

// A small hand-made record (fixture): the fields the page reads, and some it does not.
const meta = {
  v: 1 as const,
  score_id: 'sc_01a21dc73b8e79618cc9952316f13304',
  org_id: 'org_feba9f137645b532',
  tier: 'bureau' as const,
  scored_at: '2026-11-27T16:12:05.902Z',
  scored_at_ms: 1795795925902,
  node_id: 'n1',
  latency_ms: 3,
  request: { subject: { phone_number: '+447911123456', ip_address: '81.2.69.142' }, context: { band: 'x' } },
  evidence: { components: [], primary_risk_factor: { code: 'PHONE_VOIP', narrative: 'n' } },
};
const response = {
  score_id: meta.score_id,
  score: 71,
  band: 'high',
  recommended_action: 'step_up_auth',
  degraded_sources: ['reputation_ledger'],
};

describe('projectScore', () => {
  it('reads the eight fields the page shows, the subject masked', () => {
    expect(projectScore(serializeAuditRecord(meta, JSON.stringify(response)))).toEqual({
      org: meta.org_id,
      summary: {
        score_id: meta.score_id,
        at: meta.scored_at_ms,
        subject: { phone_number: '+44••••••••56', ip_address: '81.•.•.•' },
        score: 71,
        band: 'high',
        action: 'step_up_auth',
        factor: 'PHONE_VOIP',
        degraded: ['reputation_ledger'],
      },
    });
  });

  it('leaves out a record missing a field or with a field of the wrong type', () => {
    const bad = [
      'not json',
      '[]',
      serializeAuditRecord(meta, JSON.stringify({ ...response, band: 'purple' })),
      serializeAuditRecord(meta, JSON.stringify({ ...response, degraded_sources: [1] })),
      serializeAuditRecord({ ...meta, score_id: 'sc_x' }, JSON.stringify(response)),
      serializeAuditRecord({ ...meta, org_id: '' }, JSON.stringify(response)),
    ];
    for (const b of bad) expect(projectScore(b), b.slice(0, 40)).toBeUndefined();
  });

  it('keeps a score without subject fields or primary factor', () => {
    const p = projectScore(
      serializeAuditRecord({ ...meta, request: {}, evidence: { components: [] } }, JSON.stringify(response)),
    );
    expect(p?.summary.subject).toEqual({});
    expect(p?.summary.factor).toBeNull();
  });
});
