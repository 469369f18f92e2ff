import { describe, expect, it } from 'vitest';
import { AuditRecord, AuditRequest, serializeAuditRecord } from './record.ts';

describe('serializeAuditRecord', () => {
  it('embeds the response JSON as sent and decodes as a valid record', () => {
    const response = {
      score_id: 'sc_0192f0c4a1b27000800000000000abcd',
      tier: 'verify',
      score_version: '2026.11.0',
      score: 12,
      score_type: 'ranking',
      band: 'minimal',
      recommended_action: 'allow',
      suppressed: [],
      disclosure: 'a ranking, not a probability',
      degraded_sources: [],
    };
    const responseJson = JSON.stringify(response);
    const json = serializeAuditRecord(
      {
        v: 1,
        score_id: response.score_id,
        org_id: 'org_0123456789abcdef',
        tier: 'verify',
        scored_at: '2026-11-21T10:00:00.000Z',
        scored_at_ms: 1_795_260_000_000,
        node_id: 'n1',
        latency_ms: 1,
        request: { subject: { ip_address: '192.0.2.1' } },
        evidence: { components: [] },
      },
      responseJson,
    );
    const decoded = AuditRecord.parse(JSON.parse(json));
    expect(decoded.response).toEqual(response);
    expect(json.endsWith(`"response":${responseJson}}`)).toBe(true);
  });
});

describe("the audit record's request", () => {
  it('reads the subject typed and keeps members it does not name, so request_json stays as sent', () => {
    const sent = { subject: { phone_number: '+447911123456' }, context: { sector: 'x' }, added_later: 1 };
    const request = AuditRequest.parse(sent);
    expect(request.subject.phone_number).toBe('+447911123456');
    expect(JSON.stringify(request)).toBe(JSON.stringify(sent));
  });

  it('refuses a request without a subject, or a subject value that is not text', () => {
    expect(AuditRequest.safeParse({}).success).toBe(false);
    expect(AuditRequest.safeParse({ subject: { ip_address: 42 } }).success).toBe(false);
  });
});
