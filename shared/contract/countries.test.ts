import { getCountries } from 'libphonenumber-js';
import { describe, expect, it } from 'vitest';
import { continentOf } from '../resolution/continents.ts';
import { COUNTRY_CODES, isCountryCode } from './countries.ts';

describe('COUNTRY_CODES', () => {
  it('is the 249 assigned ISO 3166-1 alpha-2 codes and AC, TA, XK, sorted, each once', () => {
    expect(COUNTRY_CODES).toHaveLength(252);
    expect(new Set(COUNTRY_CODES).size).toBe(252);
    expect([...COUNTRY_CODES].sort()).toEqual(COUNTRY_CODES);
    for (const code of COUNTRY_CODES) expect(code).toMatch(/^[A-Z]{2}$/);
  });

  it('has every region of the numbering plan, and the assigned codes without a calling code', () => {
    // Every code a phone number can resolve to (AC, TA and XK among them) can be named...
    expect(getCountries().filter((c) => !isCountryCode(c))).toEqual([]);
    // ...and those it lacks are assigned codes all the same.
    for (const c of ['AQ', 'BV', 'GS', 'HM', 'PN', 'TF', 'UM']) expect(isCountryCode(c), c).toBe(true);
  });

  it('agrees with the continents table (the registry data), but for AN, which it refuses', () => {
    for (const code of COUNTRY_CODES.filter((c) => c !== 'AC' && c !== 'TA'))
      expect(continentOf(code), code).toBeDefined();
    expect(continentOf('AN')).toBeDefined();
    expect(isCountryCode('AN')).toBe(false);
  });

  it('has a name for every code in CLDR', () => {
    const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
    for (const code of COUNTRY_CODES) expect(names.of(code), code).toBeDefined();
  });

  it('refuses user-assigned, reserved, retired and lower-case codes', () => {
    for (const c of ['XX', 'ZZ', 'AA', 'QM', 'QZ', 'XA', 'AN', 'UK', 'EU', 'YU', 'gb', 'G', 'GBR', ''])
      expect(isCountryCode(c), c).toBe(false);
  });
});
