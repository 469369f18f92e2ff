import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import type { Verdict } from '../vocabulary/score-terms.ts';
import { drawBootstrap } from './calibration/bootstrap.ts';
import { deriveFloors, type Member } from './calibration/build.ts';
import { drawLegacyPopulation } from './calibration/population.ts';
import type { ReasonCode } from './reason-codes.ts';
import { buildCdf } from './percentile.ts';
import { readBandRates, readCalibrationFile, readLock, versionHash } from './version-files.ts';
import { effectiveState } from './version-state.ts';
import { DEFAULT_VERSION, SCORE_VERSIONS } from './versions.ts';
import { pointsOf, VERSION_DEFINITIONS, type VersionDefinition } from './weights.ts';

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

  it('the default publishes a rate for every band, none empty, within its caps', () => {
    const rates = readBandRates()[DEFAULT_VERSION.id]!;
    const caps = DEFAULT_VERSION.bandRateCaps!;
    for (const band of ['minimal', 'low', 'medium', 'high', 'critical'])
      expect(rates[band], `${DEFAULT_VERSION.id} ${band}`).toBeGreaterThan(0);
    expect(rates.critical!).toBeLessThanOrEqual(caps.critical);
    expect(rates.critical! + rates.high!).toBeLessThanOrEqual(caps.high);
    expect(rates.critical! + rates.high! + rates.medium!).toBeLessThanOrEqual(caps.medium);
    expect(rates.critical! + rates.high! + rates.medium! + rates.low!).toBeLessThanOrEqual(caps.low);
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

describe('band floors derived from a population', () => {
  // 90 % without evidence (score 0), then evidence of rising raw risk: 4 % at 10 (score 90), 3 %
  // at 20 (94), 2 % at 30 (97), and 1 % adverse at 40 and 50 (99).
  const members: Member[] = [];
  const add = (n: number, raw: number, verdict?: Verdict) => {
    for (let i = 0; i < n; i++) members.push({ raw, verdicts: new Set(verdict ? [verdict] : []) });
  };
  add(1800, 0);
  add(80, 10, 'elevated');
  add(60, 20, 'elevated');
  add(40, 30, 'elevated');
  add(10, 40, 'adverse');
  add(10, 50, 'adverse');
  const cal = { cdf: buildCdf(members.map((m) => m.raw)) };
  const def: VersionDefinition = {
    ...VERSION_DEFINITIONS.find((d) => d.id === '2026.12.0')!,
    bandRateCaps: { critical: 0.01, high: 0.05, medium: 0.15, low: 0.3 },
  };

  it('by the caps alone, low can be empty: its floor is the same as medium', () => {
    const floors = deriveFloors(members, def, cal);
    expect(floors.low).toBe(floors.medium);
  });

  it('with a least share per band, every band keeps it and the caps still hold', () => {
    const floors = deriveFloors(members, { ...def, bandMinShare: 0.01 }, cal);
    // low holds the 4 % at 90, medium the 3 % at 94, high the 2 % at 97, critical the 1 % at 99.
    expect(floors).toEqual({ low: 1, medium: 91, high: 95, critical: 98 });
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
