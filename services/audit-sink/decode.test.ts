import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { decode, toRow } from './sink.ts';

const message = (value: string | null): KafkaMessage =>
  ({
    key: null,
    value: value === null ? null : Buffer.from(value),
    offset: '0',
    timestamp: '0',
    attributes: 0,
    headers: {},
  }) as KafkaMessage;

const record = {
  v: 1,
  score_id: 'sc_0192f0c4a1b27000800000000000abcd',
  org_id: 'org_0123456789abcdef',
  tier: 'assess',
  scored_at: '2026-11-21T10:00:00.000Z',
  scored_at_ms: 1_795_260_000_123,
  node_id: 'n1',
  latency_ms: 3,
  request: { subject: { phone_number: '+447400123456' } },
  response: {
    score_id: 'sc_0192f0c4a1b27000800000000000abcd',
    score_version: '2026.11.0',
    score: 42,
    band: 'medium',
    recommended_action: 'investigate',
    coverage: 'partial',
    degraded_sources: [],
  },
  evidence: { components: [], primary_risk_factor: { code: 'CLI_IMPOSSIBLE' } },
};

describe('audit sink decoding', () => {
  it('turns a record into its row', () => {
    const d = decode(message(JSON.stringify(record)));
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(toRow(d.record)).toMatchObject({
      score_id: record.score_id,
      scored_at: 1_795_260_000,
      score: 42,
      band: 'medium',
      primary_risk_factor: 'CLI_IMPOSSIBLE',
      has_phone: 1,
      has_ip: 0,
    });
  });

  it("keeps a request's digest, reads a record made before it as without one, and refuses a bad one", () => {
    const digest = 'ab'.repeat(32);
    const withDigest = decode(message(JSON.stringify({ ...record, request_digest: digest })));
    const before = decode(message(JSON.stringify(record)));
    if (!withDigest.ok || !before.ok) throw new Error('not decoded');
    expect(toRow(withDigest.record).request_digest).toBe(digest);
    expect(toRow(before.record).request_digest).toBe('');
    // A key in clear is not a digest: the record goes to the dead-letter topic, not into a row.
    const clear = decode(message(JSON.stringify({ ...record, request_digest: 'order-7731' })));
    expect(clear.ok).toBe(false);
  });

  it('names why a record cannot be stored', () => {
    expect(decode(message(null))).toEqual({ ok: false, reason: 'empty message' });
    expect(decode(message('{"v":1,'))).toEqual({ ok: false, reason: 'not JSON' });
    const bad = decode(
      message(JSON.stringify({ ...record, score_id: "x' OR 1=1", response: { score: 400 } })),
    );
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.reason).toMatch(/score_id/);
  });
});
