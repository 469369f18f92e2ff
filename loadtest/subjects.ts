/**
 * Generates the load-test population: phone numbers drawn across real numbering ranges
 * (libphonenumber's example mobile numbers of every region, with their subscriber digits
 * varied) and IP addresses drawn across real ASN blocks (@ip-location-db/asn). Seeded, so two
 * runs offer the same population.
 *
 *   node loadtest/subjects.ts [count] [out]   (default 20000, loadtest/results/subjects.json)
 */
import { createReadStream, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { getCountries, getExampleNumber, type CountryCode, type Examples } from 'libphonenumber-js/max';

const require = createRequire(import.meta.url);
const ROOT = join(import.meta.dirname, '..');

/** mulberry32: small, fast, seedable; good enough to spread draws evenly. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function examplePhones(): string[] {
  const out: string[] = [];
  for (const file of ['examples.mobile.json']) {
    const examples = require(`libphonenumber-js/${file}`) as Examples;
    for (const country of getCountries() as CountryCode[]) {
      const n = getExampleNumber(country, examples);
      if (n) out.push(n.number);
    }
  }
  return out;
}

async function asnBlocks(): Promise<[number, number][]> {
  const file = require.resolve('@ip-location-db/asn/asn-ipv4-num.csv');
  const out: [number, number][] = [];
  const lines = createInterface({ input: createReadStream(file) });
  for await (const line of lines) {
    const [s, e] = line.split(',', 2);
    out.push([Number(s), Number(e)]);
  }
  return out;
}

function ipv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export async function generateSubjects(count: number, seed = 20261121) {
  const rand = rng(seed);
  const phones = examplePhones();
  const blocks = await asnBlocks();
  const subjects: { phone_number?: string; ip_address?: string }[] = [];
  for (let i = 0; i < count; i++) {
    const base = phones[Math.floor(rand() * phones.length)]!;
    // Vary the last three digits: same range, different subscriber.
    const suffix = String(Math.floor(rand() * 1000)).padStart(3, '0');
    const phone = base.slice(0, -3) + suffix;
    const [s, e] = blocks[Math.floor(rand() * blocks.length)]!;
    const ip = ipv4(s + Math.floor(rand() * (e - s + 1)));
    const kind = rand();
    subjects.push(
      kind < 0.4
        ? { phone_number: phone, ip_address: ip }
        : kind < 0.7
          ? { phone_number: phone }
          : { ip_address: ip },
    );
  }
  return subjects;
}

if (import.meta.main) {
  const count = Number(process.argv[2] ?? 20_000);
  const out = process.argv[3] ?? join(ROOT, 'loadtest', 'results', 'subjects.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(await generateSubjects(count)));
  console.error(`[subjects] wrote ${count} subjects to ${out}`);
}
