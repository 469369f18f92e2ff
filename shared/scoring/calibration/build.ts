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
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { getCountries, getExampleNumber, getCountryCallingCode } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';
import { evaluate } from '../engine.ts';
import { gatherEvidence } from '../evidence.ts';
import { loadResolutionData } from '../../resolution/resolution-data.ts';
import { buildCdf, type Calibration } from '../percentile.ts';
import { VERSION_DEFINITIONS } from '../weights.ts';

const SEED = 20261101;
const POPULATION = 20_000;
const OUT_DIR = new URL('./', import.meta.url);

/** mulberry32: small, fast, good enough for sampling, and identical on every machine. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function ipv4Blocks(): Uint32Array {
  const require = createRequire(import.meta.url);
  const csv = readFileSync(require.resolve('@ip-location-db/asn/asn-ipv4-num.csv'), 'utf8');
  const lines = csv.split('\n').filter((l) => l.length > 0);
  const out = new Uint32Array(lines.length * 2);
  lines.forEach((line, i) => {
    const [from, to] = line.split(',', 2);
    out[2 * i] = Number(from);
    out[2 * i + 1] = Number(to);
  });
  return out;
}

function ipv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

function drawPhone(rand: () => number, countries: string[]): string {
  let country = countries[Math.floor(rand() * countries.length)]!;
  let example = getExampleNumber(country as never, examples);
  while (!example) {
    country = countries[Math.floor(rand() * countries.length)]!;
    example = getExampleNumber(country as never, examples);
  }
  const digits = example.nationalNumber.split('');
  const changes = Math.floor(rand() * 5);
  for (let i = 0; i < changes; i++)
    digits[Math.floor(rand() * digits.length)] = String(Math.floor(rand() * 10));
  const r = rand();
  if (r < 0.025) digits.push(String(Math.floor(rand() * 10)));
  else if (r < 0.05) digits.pop();
  const code = getCountryCallingCode(country as never);
  const trunk = rand() < 0.02 ? '0' : '';
  return `+${code}${trunk}${digits.join('')}`;
}

function drawIp(rand: () => number, blocks: Uint32Array): string {
  if (rand() < 0.02) return ipv4(Math.floor(rand() * 2 ** 32));
  const i = Math.floor(rand() * (blocks.length / 2));
  const from = blocks[2 * i]!;
  const to = blocks[2 * i + 1]!;
  return ipv4(from + Math.floor(rand() * (to - from + 1)));
}

function main(): void {
  const rand = rng(SEED);
  const countries = getCountries().filter((c) => getExampleNumber(c, examples));
  const blocks = ipv4Blocks();
  const subjects: { phone_number?: string; ip_address?: string }[] = [];
  for (let i = 0; i < POPULATION; i++) {
    const kind = rand();
    const phone = kind < 0.7 ? drawPhone(rand, countries) : undefined;
    const ip = kind >= 0.4 ? drawIp(rand, blocks) : undefined;
    subjects.push({ ...(phone ? { phone_number: phone } : {}), ...(ip ? { ip_address: ip } : {}) });
  }
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
