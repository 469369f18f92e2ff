import { beforeAll, describe, expect, it } from 'vitest';
import { loadResolutionData, type ResolutionData } from '../resolution/resolution-data.ts';
import { gatherEvidence } from './evidence.ts';

describe('evidence', () => {
  let data: ResolutionData;
  beforeAll(() => {
    data = loadResolutionData();
  });

  it('resolves a trunk-zero caller ID to no range', () => {
    expect(gatherEvidence({ phone_number: '+4407911123456' }, data, false).phone).toMatchObject({
      valid: false,
      trunkZero: true,
      allocated: false,
    });
  });

  it('consults the ledger only when asked', () => {
    expect(gatherEvidence({ ip_address: '1.1.1.1' }, data, false).reputation).toBeUndefined();
    expect(gatherEvidence({ ip_address: '1.1.1.1' }, data, true).reputation).toEqual({ reports: 0 });
  });
});
