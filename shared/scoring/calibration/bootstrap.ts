/**
 * The bootstrap reference population: what a version is calibrated on before (or besides) the
 * scored population in ClickHouse, and the load tests' population (loadtest/subjects.ts).
 *
 * It is meant to look like a merchant's traffic, not like a fuzzer: most subjects are valid
 * mobile numbers and addresses of access networks, and each kind of risk evidence appears at the
 * rate set in BOOTSTRAP_RATES. docs/scoring.md "The bootstrap population" gives each rate's basis.
 * Every draw is seeded, so the same (size, seed) gives the same population on every machine.
 */
import { FEEDS } from '../../capabilities/registry.ts';
import { seedPath } from '../../capabilities/source.ts';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  getCountries,
  getCountryCallingCode,
  getExampleNumber,
  parsePhoneNumberFromString,
} from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';
import { classifyAs } from '../../resolution/as-type.ts';
import { rng, type PopulationSubject } from './population.ts';

/** Shares of subjects (phone rates: of subjects with a number; IP rates: of those with an address). */
export const BOOTSTRAP_RATES = {
  /** Subjects with a phone number only, an address only, or both. */
  phoneOnly: 0.4,
  ipOnly: 0.3,
  /** A number that cannot exist: a valid mobile number with one digit dropped or doubled (a typo). */
  impossibleNumber: 0.015,
  /** A national trunk zero kept after the country code (+44 07...). */
  trunkZero: 0.01,
  /** A number in a premium-rate or personal-number range. */
  elevatedRange: 0.01,
  /** Reserved space (RFC 1918 private addresses leaking through a misconfigured proxy). */
  bogon: 0.003,
  /** A Tor exit (from the Tor exit feed). */
  torExit: 0.002,
  /** A VPN endpoint (from the VPN feed's ranges). */
  vpn: 0.01,
  /** An address of a hosting or data-centre network (an AS classified hosting). */
  hosting: 0.04,
  /** Subjects with fraud reports in the ledger: one, two, three or more. */
  reported1: 0.005,
  reported2: 0.001,
  reported3: 0.002,
} as const;

const require = createRequire(import.meta.url);

interface Blocks {
  from: Float64Array;
  /** Cumulative address count up to and including each block, for size-weighted draws. */
  cumulative: Float64Array;
}

function blocksOf(rows: { from: number; to: number }[]): Blocks {
  const from = new Float64Array(rows.length);
  const cumulative = new Float64Array(rows.length);
  let total = 0;
  rows.forEach((r, i) => {
    from[i] = r.from;
    total += r.to - r.from + 1;
    cumulative[i] = total;
  });
  return { from, cumulative };
}

/** Announced IPv4 space split into hosting ASes and the rest, each weighted by address count. */
function announcedSpace(): { hosting: Blocks; other: Blocks } {
  const csv = readFileSync(require.resolve('@ip-location-db/asn/asn-ipv4-num.csv'), 'utf8');
  const hosting: { from: number; to: number }[] = [];
  const other: { from: number; to: number }[] = [];
  for (const line of csv.split('\n')) {
    if (!line) continue;
    const [from, to, asn, ...name] = line.split(',');
    const asName = name.join(',').replace(/^"|"$/g, '');
    const row = { from: Number(from), to: Number(to) };
    (classifyAs(Number(asn), asName) === 'hosting' ? hosting : other).push(row);
  }
  return { hosting: blocksOf(hosting), other: blocksOf(other) };
}

function pickAddress(rand: () => number, blocks: Blocks): string {
  const total = blocks.cumulative[blocks.cumulative.length - 1]!;
  const u = Math.floor(rand() * total);
  let lo = 0;
  let hi = blocks.cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (blocks.cumulative[mid]! > u) hi = mid;
    else lo = mid + 1;
  }
  const before = lo === 0 ? 0 : blocks.cumulative[lo - 1]!;
  return ipv4(blocks.from[lo]! + (u - before));
}

function ipv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/**
 * IPv4 lines of a feed's seed (comments and IPv6 skipped), as [first, last] address numbers. The
 * seed is the one its capability declares (shared/capabilities/source.ts).
 */
function feedRanges(feed: string, kind?: string): [number, number][] {
  const out: [number, number][] = [];
  const source = FEEDS[feed];
  if (!source) throw new Error(`no capability declares a feed ${feed}`);
  for (const raw of readFileSync(seedPath(source), 'utf8').split('\n')) {
    const [cidr = '', k] = raw
      .replace(/#.*$/, '')
      .split(',')
      .map((s) => s.trim());
    if (!cidr || cidr.includes(':') || (kind && k !== kind)) continue;
    const [addr = '', bits = '32'] = cidr.split('/');
    const base = addr.split('.').reduce((n, o) => n * 256 + Number(o), 0);
    out.push([base, base + 2 ** (32 - Number(bits)) - 1]);
  }
  return out;
}

const inRange = (rand: () => number, [a, b]: [number, number]) => ipv4(a + Math.floor(rand() * (b - a + 1)));
const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

/** Numbers of premium-rate (09) and personal-number (070) ranges of the UK plan, as templates. */
const ELEVATED_TEMPLATES = ['+449', '+4470'];

function validMobile(rand: () => number, countries: string[]): string {
  for (;;) {
    const country = pick(rand, countries);
    const example = getExampleNumber(country as never, examples)!;
    const digits = example.nationalNumber.split('');
    // The subscriber part: the last digits, so the number stays in the example's range.
    const tail = Math.min(4, digits.length - 2);
    for (let i = digits.length - tail; i < digits.length; i++) digits[i] = String(Math.floor(rand() * 10));
    const e164 = `+${getCountryCallingCode(country as never)}${digits.join('')}`;
    if (parsePhoneNumberFromString(e164)?.isValid()) return e164;
  }
}

function elevatedNumber(rand: () => number): string {
  for (;;) {
    const prefix = pick(rand, ELEVATED_TEMPLATES);
    let n = prefix;
    while (n.length < 13) n += String(Math.floor(rand() * 10));
    const parsed = parsePhoneNumberFromString(n);
    const type = parsed?.isValid() ? parsed.getType() : undefined;
    if (type === 'PREMIUM_RATE' || type === 'PERSONAL_NUMBER') return n;
  }
}

function impossibleNumber(rand: () => number, countries: string[]): string {
  for (;;) {
    const valid = validMobile(rand, countries);
    const at = 3 + Math.floor(rand() * (valid.length - 3));
    const typo =
      rand() < 0.5
        ? valid.slice(0, at) + valid.slice(at + 1)
        : valid.slice(0, at) + valid[at] + valid.slice(at);
    if (!parsePhoneNumberFromString(typo)?.isValid()) return typo;
  }
}

function trunkZeroNumber(rand: () => number, countries: string[]): string {
  const valid = parsePhoneNumberFromString(validMobile(rand, countries))!;
  return `+${valid.countryCallingCode}0${valid.nationalNumber}`;
}

export interface BootstrapDraw {
  subjects: PopulationSubject[];
  /** Fraud reports per subject, parallel to `subjects` (0 for most). */
  reports: number[];
}

export function drawBootstrap(size: number, seed: number): BootstrapDraw {
  const rand = rng(seed);
  const r = BOOTSTRAP_RATES;
  const countries = getCountries().filter((c) => getExampleNumber(c, examples));
  const space = announcedSpace();
  const tor = feedRanges('torExits');
  const vpn = feedRanges('vpnProxy', 'vpn').filter(([a]) => a !== 0xc6336400); // not 198.51.100/26 (documentation)
  const subjects: PopulationSubject[] = [];
  const reports: number[] = [];
  for (let i = 0; i < size; i++) {
    const kind = rand();
    const subject: PopulationSubject = {};
    if (kind < 1 - r.ipOnly) {
      const p = rand();
      subject.phone_number =
        p < r.impossibleNumber
          ? impossibleNumber(rand, countries)
          : p < r.impossibleNumber + r.trunkZero
            ? trunkZeroNumber(rand, countries)
            : p < r.impossibleNumber + r.trunkZero + r.elevatedRange
              ? elevatedNumber(rand)
              : validMobile(rand, countries);
    }
    if (kind >= r.phoneOnly) {
      let q = rand();
      subject.ip_address =
        (q -= r.bogon) < 0
          ? `10.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}.${1 + Math.floor(rand() * 254)}`
          : (q -= r.torExit) < 0
            ? inRange(rand, pick(rand, tor))
            : (q -= r.vpn) < 0
              ? inRange(rand, pick(rand, vpn))
              : q - r.hosting < 0
                ? pickAddress(rand, space.hosting)
                : pickAddress(rand, space.other);
    }
    const q = rand();
    reports.push(
      q < r.reported3
        ? 3
        : q < r.reported3 + r.reported2
          ? 2
          : q < r.reported3 + r.reported2 + r.reported1
            ? 1
            : 0,
    );
    subjects.push(subject);
  }
  return { subjects, reports };
}
