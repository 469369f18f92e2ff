import { describe, expect, it, vi } from 'vitest';
import { REASON_CODES, type ReasonCode } from './reason-codes.ts';
import { readCalibrationFile, readLock, versionHash } from './version-files.ts';
import { SCORE_VERSIONS } from './versions.ts';
import { pointsOf, VERSION_DEFINITIONS } from './weights.ts';

// A reason code added after every version was released: the registry every module of this file
// sees carries it, and no version names it.
const ADDED = 'TEST_ADDED_LATER' as ReasonCode;
vi.mock('./reason-codes.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('./reason-codes.ts')>();
  return { ...real, REASON_CODES: { ...real.REASON_CODES, TEST_ADDED_LATER: 'Added after every release.' } };
});

describe('a reason code added to the registry', () => {
  it('is in the registry the versions are loaded against', () => {
    expect(Object.keys(REASON_CODES)).toContain(ADDED);
  });

  it('leaves the hash of every version as locked, and scores 0 in every version', () => {
    // Loading the versions refuses a hash the lock does not hold; check it explicitly too.
    const lock = readLock();
    expect(SCORE_VERSIONS.map((v) => v.id)).toEqual(VERSION_DEFINITIONS.map((d) => d.id));
    for (const v of SCORE_VERSIONS) {
      expect(v.hash, v.id).toBe(lock[v.id]);
      expect(versionHash(v, v.bandFloors, readCalibrationFile(v.id)), v.id).toBe(lock[v.id]);
      expect(v.points, v.id).not.toHaveProperty(ADDED);
      expect(pointsOf(v.points, ADDED), v.id).toBe(0);
    }
  });
});
