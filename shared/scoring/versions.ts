import type { ScoreVersion } from './engine.ts';
import { readCalibrationFile, readLock, resolveVersion } from './version-files.ts';
import { VERSION_DEFINITIONS } from './weights.ts';

/**
 * Score versions: each freezes its points, evidence gates and posture shift (weights.ts), its
 * band floors (weights.ts, or, for versions that name none, the ones `npm run calibrate` derived
 * into calibration/<id>.json) and its calibration table (calibration/<id>.json). Each is
 * content-hashed (version-files.ts `versionHash`); versions.lock.json records the hash of every
 * version and a process refuses to start when one no longer matches, so a released version cannot
 * change by accident. Each is live, candidate or retired as released; the default and the
 * challenger at run time are admin state (version-state.ts) over this as-released view.
 */
function loadVersions(): ScoreVersion[] {
  const lock = readLock();
  return VERSION_DEFINITIONS.map((def) => {
    if (!(def.id in lock)) {
      throw new Error(
        `score version ${def.id} is not calibrated (no entry in versions.lock.json): npm run calibrate ` +
          'generates its calibration/<id>.json and its lock entry',
      );
    }
    const v = resolveVersion(def, readCalibrationFile(def.id));
    if (lock[def.id] !== v.hash) {
      throw new Error(
        `score version ${def.id} hashes to ${v.hash}, versions.lock.json has ${lock[def.id] ?? 'nothing'}: ` +
          'a released version never changes (add a new one); a candidate is rebuilt by npm run calibrate',
      );
    }
    return v;
  });
}

export const SCORE_VERSIONS: readonly ScoreVersion[] = loadVersions();

/** The as-released default: the newest live version. At run time see version-state.ts. */
export const DEFAULT_VERSION: ScoreVersion = SCORE_VERSIONS.filter((v) => v.status === 'live').at(-1)!;

export function findVersion(id: string): ScoreVersion | undefined {
  return SCORE_VERSIONS.find((v) => v.id === id);
}
