/**
 * Generates the load-test population with the same generator as the calibration's reference
 * population (shared/scoring/calibration/population.ts): numbers across real numbering ranges,
 * addresses across real ASN blocks, with another seed. Two runs offer the same population.
 *
 *   node loadtest/subjects.ts [count] [out]   (default 20000, loadtest/results/subjects.json)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { drawPopulation } from '../shared/scoring/calibration/population.ts';

export const SUBJECTS_SEED = 20261121;

if (import.meta.main) {
  const count = Number(process.argv[2] ?? 20_000);
  const out = process.argv[3] ?? join(import.meta.dirname, 'results', 'subjects.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(drawPopulation(count, SUBJECTS_SEED)));
  console.error(`[subjects] wrote ${count} subjects to ${out}`);
}
