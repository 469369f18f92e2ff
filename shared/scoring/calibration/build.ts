/**
 * Builds the calibration table of every score version: `npm run calibrate`.
 *
 * The reference population is drawn from the real numbering and address data the service
 * resolves against, with a fixed seed so the tables are reproducible byte for byte:
 *
 * - phone numbers (70 % of subjects): a country of libphonenumber's metadata is picked uniformly;
 *   its example mobile number is taken and 0 to 4 of its digits (any position, so the draw moves
 *   across the plan's ranges: mobile, fixed, VoIP, premium, unassigned) are replaced at random;
 *   5 % of numbers also gain or lose a digit (impossible lengths) and 2 % are written with a
 *   national trunk zero after the country code, as real traffic contains them;
 * - IP addresses (60 % of subjects): 98 % are a random address inside a random block of the
 *   @ip-location-db/asn IPv4 table (every announced block equally likely), 2 % are uniform over
 *   the whole IPv4 space, which includes reserved and unannounced space;
 * - subjects are phone only (40 %), IP only (30 %) or both (30 %); the reputation ledger is not
 *   part of the population (it has no report feed yet, so it adds no raw risk).
 *
 * Every subject goes through the same evidence gathering and `evaluate` as a live request, under
 * each version's points. The output, shared/scoring/calibration/<version>.json, is checked in:
 * a released version's table is never rebuilt, only a new version's.
 */
import { writeFileSync } from 'node:fs';
import { evaluate } from '../engine.ts';
import { gatherEvidence } from '../evidence.ts';
import { loadResolutionData } from '../../resolution/resolution-data.ts';
import { buildCdf, type Calibration } from '../percentile.ts';
import { VERSION_DEFINITIONS } from '../weights.ts';
import { drawPopulation } from './population.ts';

const SEED = 20261101;
const POPULATION = 20_000;
const OUT_DIR = new URL('./', import.meta.url);

function main(): void {
  const subjects = drawPopulation(POPULATION, SEED);
  const data = loadResolutionData();
  const evidences = subjects.map((s) => gatherEvidence(s, data));
  for (const def of VERSION_DEFINITIONS) {
    const raws = evidences.map((e) => evaluate(e, def.points).raw);
    const { raw, below, quantiles } = buildCdf(raws);
    const table: Calibration = {
      score_version: def.id,
      method:
        'shared/scoring/calibration/build.ts: libphonenumber example numbers per country with 0-4 digits ' +
        'replaced, 5 % wrong length, 2 % trunk zero; IPv4 addresses inside random @ip-location-db/asn blocks, ' +
        '2 % uniform over IPv4; 40 % phone only, 30 % IP only, 30 % both',
      seed: SEED,
      population: POPULATION,
      quantiles,
      cdf: { raw, below },
    };
    writeFileSync(new URL(`${def.id}.json`, OUT_DIR), `${JSON.stringify(table, null, 2)}\n`);
    console.log(
      `${def.id}: ${raw.length} distinct raw values; median ${quantiles[50]}, p90 ${quantiles[90]}`,
    );
  }
}

main();
