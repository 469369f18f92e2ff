import { describe, expect, it } from 'vitest';
import { idempotencyCountKey, packBody, unpackBody } from './idempotency-entry.ts';

describe("an idempotency entry's stored body", () => {
  it('gives back the exact bytes sent, smaller than they were', () => {
    const body = JSON.stringify({
      score_id: 'sc_1',
      components: Array(40).fill({ verdict: 'clean' }),
      note: 'é ✓',
    });
    const packed = packBody(body);
    expect(unpackBody(packed)).toBe(body);
    expect(packed.length).toBeLessThan(body.length);
  });

  it('replays an entry stored before compaction as it was', () => {
    expect(unpackBody('{"score_id":"sc_1"}')).toBe('{"score_id":"sc_1"}');
  });

  it("counts an organisation's entries per UTC day under its hash tag", () => {
    expect(idempotencyCountKey('org_1', Date.UTC(2026, 10, 29, 23, 59))).toBe('frs:idemn:{org_1}:2026-11-29');
  });
});
