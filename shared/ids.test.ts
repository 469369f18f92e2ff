import { describe, expect, it } from 'vitest';
import { newOutcomeId, newScoreId, OUTCOME_ID_PATTERN, SCORE_ID_PATTERN, scoreIdTime } from './ids.ts';

describe('score ids', () => {
  it('are sc_ + 32 lowercase hex carrying a UUIDv7', () => {
    const id = newScoreId(1_700_000_000_123);
    expect(id).toMatch(SCORE_ID_PATTERN);
    expect(id[15]).toBe('7');
    expect('89ab').toContain(id[19]);
  });

  it('carry their creation time and sort by it', () => {
    const a = newScoreId(1_700_000_000_000);
    const b = newScoreId(1_700_000_000_001);
    expect(scoreIdTime(a)).toBe(1_700_000_000_000);
    expect(a < b).toBe(true);
  });

  it('reject ids that are not ours', () => {
    expect(scoreIdTime('sc_0123')).toBeNull();
    expect(scoreIdTime("sc_0123456789abcdef0123456789abcdef' OR 1=1")).toBeNull();
    expect(scoreIdTime('sc_0123456789ab0def0123456789abcdef')).toBeNull();
  });
});

describe('outcome ids', () => {
  it('are oc_ + 32 lowercase hex carrying a UUIDv7 of the receipt time', () => {
    const id = newOutcomeId(1_700_000_000_123);
    expect(id).toMatch(OUTCOME_ID_PATTERN);
    expect(id.slice(3, 15)).toBe((1_700_000_000_123).toString(16).padStart(12, '0'));
    expect(id[15]).toBe('7');
  });
});
