import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { ScoreVersion } from './engine.ts';
import type { Calibration } from './percentile.ts';
import type { BandFloors, VersionDefinition } from './weights.ts';
import { sha256Hex } from '../sha256.ts';

/** The files a score version is frozen in, and its content hash. */
const Floors = z.object({ low: z.int(), medium: z.int(), high: z.int(), critical: z.int() });
const BandShares = z.record(z.string(), z.number().min(0).max(1));

export const CalibrationFile = z.object({
  score_version: z.string(),
  method: z.string(),
  seed: z.int(),
  population: z.int().positive(),
  quantiles: z.array(z.number()).length(101),
  cdf: z.object({ raw: z.array(z.number()).min(1), below: z.array(z.number().min(0).max(1)).min(1) }),
  /** From 2026.12.0: floors derived from the population and the version's rate caps. */
  band_floors: Floors.optional(),
  /** Where the raw risks came from: bootstrap, history, or a blend, with counts. */
  source: z
    .object({ kind: z.enum(['bootstrap', 'history', 'blend']) })
    .loose()
    .optional(),
});
export type CalibrationFile = z.infer<typeof CalibrationFile>;

const calibrationUrl = (id: string) => new URL(`./calibration/${id}.json`, import.meta.url);
const LOCK_URL = new URL('./versions.lock.json', import.meta.url);
const RATES_URL = new URL('./calibration/band-rates.json', import.meta.url);

export function readCalibrationFile(id: string): CalibrationFile {
  const cal = CalibrationFile.parse(JSON.parse(readFileSync(calibrationUrl(id), 'utf8')));
  if (cal.score_version !== id) throw new Error(`calibration/${id}.json is for ${cal.score_version}`);
  if (cal.cdf.raw.length !== cal.cdf.below.length)
    throw new Error(`calibration/${id}.json: cdf lengths differ`);
  return cal;
}

/** Everything that decides a score, in a fixed key order, hashed. */
export function versionHash(
  def: VersionDefinition,
  floors: BandFloors,
  cal: Pick<Calibration, 'cdf'>,
): string {
  const canonical = JSON.stringify({
    id: def.id,
    points: Object.fromEntries(Object.entries(def.points).sort(([a], [b]) => a.localeCompare(b))),
    band_floors: { low: floors.low, medium: floors.medium, high: floors.high, critical: floors.critical },
    gates: def.gates
      ? Object.fromEntries(Object.entries(def.gates).sort(([a], [b]) => a.localeCompare(b)))
      : null,
    posture_shift: def.postureShift,
    cdf: cal.cdf,
  });
  return `sha256:${sha256Hex(canonical)}`;
}

export function readLock(): Record<string, string> {
  return z.record(z.string(), z.string()).parse(JSON.parse(readFileSync(LOCK_URL, 'utf8')));
}

/** Measured band rates of each version on its own reference population (balanced, no context). */
export function readBandRates(): Record<string, Record<string, number>> {
  return z.record(z.string(), BandShares).parse(JSON.parse(readFileSync(RATES_URL, 'utf8')));
}

export function resolveVersion(def: VersionDefinition, cal: CalibrationFile): ScoreVersion {
  const floors = def.bandFloors ?? cal.band_floors;
  if (!floors) throw new Error(`score version ${def.id} has neither band floors nor calibrated ones`);
  const calibration: Calibration = {
    score_version: cal.score_version,
    method: cal.method,
    seed: cal.seed,
    population: cal.population,
    quantiles: cal.quantiles,
    cdf: cal.cdf,
  };
  return { ...def, bandFloors: floors, calibration, hash: versionHash(def, floors, calibration) };
}
