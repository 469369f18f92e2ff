import { describe, expect, it } from 'vitest';
import { VERSION_DEFINITIONS } from '../weights.ts';
import { historyMember } from './build.ts';

const v2026_12_3 = VERSION_DEFINITIONS.find((v) => v.id === '2026.12.3')!;
const member = (fired: string[], raw: number) =>
  [...historyMember({ raw, fired } as Parameters<typeof historyMember>[0], v2026_12_3).verdicts].sort();

describe('a scored row as a calibration member', () => {
  it('takes each fired code’s verdict from its capability’s declaration', () => {
    expect(member(['CLI_IMPOSSIBLE'], 45)).toEqual(['adverse']);
    expect(member(['IP_TOR_EXIT'], 35)).toEqual(['adverse']);
    expect(member(['IP_HOSTING'], 10)).toEqual(['elevated']);
    expect(member(['IP_TOR_OPERATOR_NETWORK', 'IP_HOSTING'], 30)).toEqual(['elevated']);
    expect(member([], 0)).toEqual([]);
  });

  it('counts ledger reports as many as the raw risk can hold: adverse from the third', () => {
    // 2026.12.3 gives 30 points per report.
    expect(member(['REPUTATION_REPORTED'], 60)).toEqual(['elevated']);
    expect(member(['REPUTATION_REPORTED'], 90)).toEqual(['adverse']);
    expect(member(['REPUTATION_REPORTED', 'IP_HOSTING'], 70)).toEqual(['elevated']);
  });
});
