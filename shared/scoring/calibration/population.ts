/**
 * The seeded generator and subject shape of the synthetic populations, and the legacy draw the
 * versions before 2026.12.0 were calibrated on. The bootstrap population of later versions (and
 * of the load tests) is drawn by bootstrap.ts.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { getCountries, getCountryCallingCode, getExampleNumber } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';

export interface PopulationSubject {
  phone_number?: string;
  ip_address?: string;
}

/** mulberry32: small, fast, good enough for sampling, and identical on every machine. */
export function rng(seed: number): () => number {
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

function drawLegacyPhone(rand: () => number, countries: string[]): string {
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

function drawLegacyIp(rand: () => number, blocks: Uint32Array): string {
  if (rand() < 0.02) return ipv4(Math.floor(rand() * 2 ** 32));
  const i = Math.floor(rand() * (blocks.length / 2));
  const from = blocks[2 * i]!;
  const to = blocks[2 * i + 1]!;
  return ipv4(from + Math.floor(rand() * (to - from + 1)));
}

/**
 * The draw the versions before 2026.12.0 were calibrated on (kept to reproduce their tables and
 * the figures measured on it): example numbers with 0-4 random digits replaced, which makes about
 * one number in five impossible, and every announced ASN block equally likely.
 */
export function drawLegacyPopulation(size: number, seed: number): PopulationSubject[] {
  const rand = rng(seed);
  const countries = getCountries().filter((c) => getExampleNumber(c, examples));
  const blocks = ipv4Blocks();
  const subjects: PopulationSubject[] = [];
  for (let i = 0; i < size; i++) {
    const kind = rand();
    const phone = kind < 0.7 ? drawLegacyPhone(rand, countries) : undefined;
    const ip = kind >= 0.4 ? drawLegacyIp(rand, blocks) : undefined;
    subjects.push({ ...(phone ? { phone_number: phone } : {}), ...(ip ? { ip_address: ip } : {}) });
  }
  return subjects;
}
