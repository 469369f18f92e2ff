import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import { drawBootstrap } from './calibration/bootstrap.ts';
import { drawLegacyPopulation } from './calibration/population.ts';
import type { ReasonCode } from './reason-codes.ts';
import { readCalibrationFile, readLock, versionHash } from './version-files.ts';
import { effectiveState } from './version-state.ts';
import { DEFAULT_VERSION, SCORE_VERSIONS } from './versions.ts';
import { pointsOf, VERSION_DEFINITIONS } from './weights.ts';

describe('score versions', () => {
  it('every version is locked by its content hash, and any change to a released one breaks it', () => {
    const lock = readLock();
    for (const v of SCORE_VERSIONS) {
      expect(lock[v.id]).toBe(v.hash);
      const cal = readCalibrationFile(v.id);
      const nudged = { ...v, points: { ...v.points, IP_HOSTING: pointsOf(v.points, 'IP_HOSTING') + 1 } };
      expect(versionHash(nudged, v.bandFloors, cal)).not.toBe(v.hash);
      expect(versionHash(v, { ...v.bandFloors, critical: v.bandFloors.critical + 1 }, cal)).not.toBe(v.hash);
      if (v.gates) expect(versionHash({ ...v, gates: undefined }, v.bandFloors, cal)).not.toBe(v.hash);
    }
  });

  it('from 2026.12.0 on, missing evidence weighs nothing', () => {
    const missing: ReasonCode[] = [
      'IP_NETWORK_UNKNOWN',
      'CLI_UNATTESTED',
      'NDC_RANGE_UNKNOWN',
      'SOURCE_UNAVAILABLE',
      'REPUTATION_NO_REPORTS',
    ];
    const gated = VERSION_DEFINITIONS.filter((d) => d.gates);
    expect(gated.map((d) => d.id)).toContain(DEFAULT_VERSION.id);
    for (const d of gated)
      for (const code of missing) expect(pointsOf(d.points, code), `${d.id} ${code}`).toBe(0);
  });

  it('the run-time state ignores unknown and retired versions and never makes the default its own challenger', () => {
    expect(effectiveState({ default: '1999.01.0' }).default).toBe(DEFAULT_VERSION);
    expect(effectiveState({ default: '2026.02.0' }).default).toBe(DEFAULT_VERSION);
    expect(effectiveState({}, '2026.12.1').challenger?.id).toBe('2026.12.1');
    expect(effectiveState({ challenger: '' }, '2026.12.1').challenger).toBeUndefined();
    expect(effectiveState({ challenger: DEFAULT_VERSION.id }).challenger).toBeUndefined();
    const promoted = effectiveState({ default: '2026.12.1', retired: '2026.11.0' });
    expect(promoted.default.id).toBe('2026.12.1');
    expect(promoted.status.get('2026.12.1')).toBe('live');
    expect(promoted.status.get('2026.11.0')).toBe('retired');
  });
});

describe('the bootstrap population', () => {
  const invalidShare = (numbers: string[]) =>
    numbers.filter((n) => !parsePhoneNumberFromString(n)?.isValid()).length / numbers.length;

  it('has few impossible numbers, unlike the legacy draw (one in five)', () => {
    const phones = drawBootstrap(4000, 11).subjects.flatMap((s) => (s.phone_number ? [s.phone_number] : []));
    // 1.5 % impossible + 1 % trunk zero (also invalid as written), with sampling noise.
    expect(invalidShare(phones)).toBeLessThan(0.04);
    const legacy = drawLegacyPopulation(4000, 11).flatMap((s) => (s.phone_number ? [s.phone_number] : []));
    expect(invalidShare(legacy)).toBeGreaterThan(0.15);
  });
});
