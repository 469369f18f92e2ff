/**
 * Generates the load-test population with the same generator as the calibration's reference
 * population (shared/scoring/calibration/population.ts): numbers across real numbering ranges,
 * addresses across real ASN blocks, with another seed. Two runs offer the same population.
 *
 *   node loadtest/subjects.ts [count] [out]   (default 20000, loadtest/results/subjects.json)
 *
 * A count that is not a positive integer, or a stray argument, is refused (exit 2) and nothing is written.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { drawBootstrap } from '../shared/scoring/calibration/bootstrap.ts';

export const SUBJECTS_SEED = 20261121;

if (import.meta.main) {
  const [countArg = '20000', outArg, ...extra] = process.argv.slice(2);
  // A typo must not leave an empty or half-written population behind: refuse before writing.
  if (!/^[1-9]\d{0,6}$/.test(countArg) || extra.length > 0 || outArg?.startsWith('-')) {
    console.error('usage: npm run subjects -- [count 1..9999999] [out.json]');
    process.exit(2);
  }
  const count = Number(countArg);
  const out = outArg ?? join(import.meta.dirname, 'results', 'subjects.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(drawBootstrap(count, SUBJECTS_SEED).subjects));
  console.error(`[subjects] wrote ${count} subjects to ${out}`);
}
