import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { ScoreVersion } from './engine.ts';
import type { Calibration } from './percentile.ts';
import { VERSION_DEFINITIONS } from './weights.ts';

/**
 * Score versions: each freezes its points, band thresholds (weights.ts) and the calibration table
 * built by `npm run calibrate` (calibration/<id>.json). Versions are live or retired; the newest
 * live one is the default.
 */
const CalibrationFile = z.object({
  score_version: z.string(),
  method: z.string(),
  seed: z.int(),
  population: z.int().positive(),
  quantiles: z.array(z.number()).length(101),
  cdf: z.object({ raw: z.array(z.number()).min(1), below: z.array(z.number().min(0).max(1)).min(1) }),
});

function loadCalibration(id: string): Calibration {
  const file = new URL(`./calibration/${id}.json`, import.meta.url);
  const cal = CalibrationFile.parse(JSON.parse(readFileSync(file, 'utf8')));
  if (cal.score_version !== id) throw new Error(`calibration/${id}.json is for ${cal.score_version}`);
  if (cal.cdf.raw.length !== cal.cdf.below.length)
    throw new Error(`calibration/${id}.json: cdf lengths differ`);
  return cal;
}

export const SCORE_VERSIONS: readonly ScoreVersion[] = VERSION_DEFINITIONS.map((def) => ({
  ...def,
  calibration: loadCalibration(def.id),
}));

export const DEFAULT_VERSION: ScoreVersion = SCORE_VERSIONS.filter((v) => v.status === 'live').at(-1)!;

export function findVersion(id: string): ScoreVersion | undefined {
  return SCORE_VERSIONS.find((v) => v.id === id);
}
