import { describe, expect, it } from 'vitest';
import { AuditRecordEnvelope } from '../../shared/audit/record.ts';
import { dailyUsageKey, recentScoresKey, recentSeqKey } from '../../shared/portal/keyspace.ts';
import { byOrganisation, shareCall, summarise } from './activity.ts';

// A small hand-made record (fixture), as the sink has it once decoded.
const record = AuditRecordEnvelope.parse({
  v: 1,
  score_id: 'sc_01a21dc73b8e79618cc9952316f13304',
  org_id: 'org_feba9f137645b532',
  tier: 'bureau',
  scored_at_ms: Date.UTC(2026, 10, 27, 16, 12, 5, 902),
  node_id: 'n1',
  latency_ms: 3,
  request: { subject: { phone_number: '+447911123456', ip_address: '81.2.69.142' }, context: { x: 1 } },
  response: {
    score_id: 'sc_01a21dc73b8e79618cc9952316f13304',
    score_version: '2026.12.3',
    score: 71,
    band: 'high',
    recommended_action: 'step_up_auth',
    degraded_sources: ['reputation_ledger'],
  },
  evidence: { components: [], primary_risk_factor: { code: 'PHONE_VOIP', narrative: 'n' } },
});

describe("the Activity page's rows, from the sink's decoded records", () => {
  it('keeps the eight fields the page shows, the subject masked', () => {
    expect(summarise(record)).toEqual({
      score_id: record.score_id,
      at: record.scored_at_ms,
      subject: { phone_number: '+44••••••••56', ip_address: '81.•.•.•' },
      score: 71,
      band: 'high',
      action: 'step_up_auth',
      factor: 'PHONE_VOIP',
      degraded: ['reputation_ledger'],
    });
  });

  it('keeps a score without subject fields or primary factor', () => {
    const s = summarise({ ...record, request: { subject: {} }, evidence: {} });
    expect(s.subject).toEqual({});
    expect(s.factor).toBeNull();
  });

  it("groups a batch by organisation, in offset order, with each day's counts summed", () => {
    const other = { ...record, org_id: 'org_0000000000000001' };
    const low = {
      ...record,
      score_id: 'sc_01a21dc73b8e79618cc9952316f13305',
      response: { ...record.response, band: 'low' as const },
    };
    const next = {
      ...record,
      score_id: 'sc_01a21dc73b8e79618cc9952316f13306',
      scored_at_ms: record.scored_at_ms + 3_600_000,
    };
    const orgs = byOrganisation([record, other, low, next]);
    expect([...orgs.keys()]).toEqual([record.org_id, other.org_id]);
    const mine = orgs.get(record.org_id)!;
    expect(mine.lines.map((l) => (JSON.parse(l) as { score_id: string }).score_id)).toEqual([
      record.score_id,
      low.score_id,
      next.score_id,
    ]);
    expect(Object.fromEntries(mine.counts.get(dailyUsageKey(record.org_id, '2026-11-27'))!)).toEqual({
      total: 3,
      'band:high': 2,
      'band:low': 1,
      'hour:16:high': 1,
      'hour:16:low': 1,
      'hour:17:high': 1,
    });
  });

  it("lays out one organisation's share for activity-batch.lua, its marker named by its scores", () => {
    const next = { ...record, score_id: 'sc_01a21dc73b8e79618cc9952316f13306' };
    const share = byOrganisation([record, next]).get(record.org_id)!;
    const call = shareCall(record.org_id, share);
    const day = dailyUsageKey(record.org_id, '2026-11-27');
    expect(call.marker).toMatch(/^frs:portal:recent:\{org_feba9f137645b532\}:batch:[0-9a-f]{32}$/);
    expect(call.keys).toEqual([
      recentScoresKey(record.org_id),
      recentSeqKey(record.org_id),
      call.marker,
      day,
    ]);
    expect(call.args).toEqual([
      '500',
      String(7 * 86_400),
      String(3 * 86_400),
      '60000',
      '2',
      ...share.lines,
      '3',
      'total',
      '2',
      'band:high',
      '2',
      'hour:16:high',
      '2',
    ]);
    // The same scores name the same marker (a retry, a batch consumed again); others another.
    expect(shareCall(record.org_id, byOrganisation([record, next]).get(record.org_id)!).marker).toBe(
      call.marker,
    );
    expect(shareCall(record.org_id, byOrganisation([record]).get(record.org_id)!).marker).not.toBe(
      call.marker,
    );
  });
});
