/**
 * Micro-benchmark of subject resolution: load time and memory of the resolution data, and the
 * cost of one phone and one IP resolution over random inputs drawn from the real ranges.
 *
 *   node loadtest/resolution-bench.ts [iterations]
 *
 * Inputs are generated before timing; each call is timed alone with hrtime, so the figures
 * include about 0.05 µs of timer overhead.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { carrierFor } from '../shared/resolution/carrier-prefixes.ts';
import { resolveIp } from '../shared/resolution/ip.ts';
import { findV4, findV6 } from '../shared/resolution/ip-ranges.ts';
import { resolvePhone } from '../shared/resolution/phone.ts';
import {
  loadResolutionData,
  typedArrayBytes,
  type LoadOptions,
  type ResolutionData,
} from '../shared/resolution/resolution-data.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const iterations = Number(process.argv[2] ?? 200_000);
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

function pick<T>(items: ArrayLike<T>): T {
  return items[Math.floor(Math.random() * items.length)]!;
}

function randomBetween(lo: bigint, hi: bigint): bigint {
  const span = hi - lo + 1n;
  const r =
    (BigInt(Math.floor(Math.random() * 2 ** 32)) << 32n) | BigInt(Math.floor(Math.random() * 2 ** 32));
  return lo + (r % span);
}

function v4Inputs(data: ResolutionData, n: number): string[] {
  const { starts, ends } = data.networks.asnV4.bounds;
  return Array.from({ length: n }, () => {
    const row = Math.floor(Math.random() * starts.length);
    const a = starts[row]! + Math.floor(Math.random() * (ends[row]! - starts[row]! + 1));
    return [a >>> 24, (a >>> 16) & 255, (a >>> 8) & 255, a & 255].join('.');
  });
}

function v6Inputs(data: ResolutionData, n: number): string[] {
  const b = data.networks.asnV6.bounds;
  return Array.from({ length: n }, () => {
    const row = Math.floor(Math.random() * b.startHi.length);
    const start = (b.startHi[row]! << 64n) | b.startLo[row]!;
    const end = (b.endHi[row]! << 64n) | b.endLo[row]!;
    const hex = randomBetween(start, end).toString(16).padStart(32, '0');
    return hex.match(/.{4}/g)!.join(':');
  });
}

/** Numbers inside Google's carrier prefixes, padded with random digits until the plan calls them valid. */
function phoneInputs(data: ResolutionData, n: number): string[] {
  const { keys } = data.carriers;
  const out: string[] = [];
  while (out.length < n) {
    const key = pick(keys);
    const length = Math.floor(key / 1e12);
    const cc = Math.floor(key / 1e9) % 1000;
    const prefix = String(key % 1e9).padStart(length, '0');
    for (let national = prefix; national.length <= 12; national += Math.floor(Math.random() * 10)) {
      const e164 = `+${cc}${national}`;
      if (national.length >= 6 && parsePhoneNumberFromString(e164)?.isValid()) {
        out.push(e164);
        break;
      }
    }
  }
  return out;
}

function time(label: string, inputs: string[], resolve: (input: string) => unknown): void {
  timeEach(label, inputs, resolve);
}

function timeEach<T>(label: string, inputs: readonly T[], resolve: (input: T) => unknown): void {
  for (const input of inputs.slice(0, 20_000)) resolve(input); // warm the JIT
  const micros = new Float64Array(inputs.length);
  for (let i = 0; i < inputs.length; i++) {
    const t0 = process.hrtime.bigint();
    resolve(inputs[i]!);
    micros[i] = Number(process.hrtime.bigint() - t0) / 1000;
  }
  micros.sort();
  const q = (p: number) => micros[Math.min(micros.length - 1, Math.floor(p * micros.length))]!.toFixed(2);
  console.log(
    `${label.padEnd(22)} median ${q(0.5)} µs   p99 ${q(0.99)} µs   max ${q(1)} µs   (n=${inputs.length})`,
  );
}

/** Loads once and reports time and the memory the loaded data keeps (after a full GC). */
function measuredLoad(options: LoadOptions): ResolutionData {
  gc();
  const before = process.memoryUsage();
  const loaded = loadResolutionData(options);
  const peak = process.memoryUsage();
  gc();
  const after = process.memoryUsage();
  console.log(
    `load from ${loaded.origin.padEnd(9)} ${String(loaded.loadMs).padStart(5)} ms   kept: heapUsed +${mib(after.heapUsed - before.heapUsed)}, ` +
      `arrayBuffers +${mib(after.arrayBuffers - before.arrayBuffers)}   transient peak heapUsed +${mib(peak.heapUsed - before.heapUsed)}, rss +${mib(peak.rss - before.rss)}`,
  );
  if (loaded.cacheError) console.log(`  cache: ${loaded.cacheError}`);
  return loaded;
}

// First the way a node loads (the binary cache, or the packages when there is none yet, which
// writes it), then a parse of the packages for comparison; its rss comes on top of the first.
const data = measuredLoad({});
measuredLoad({ cacheDir: null });

console.log(
  `data: carrier ${data.sources.carrier}, asn ${data.sources.asn}, ip country ${data.sources.ipCountry}`,
);
console.log(`typed arrays ${mib(typedArrayBytes(data))} (the rest of the kept heap is AS and carrier names)`);
console.log(
  `rows: asn v4 ${data.networks.asnV4.asn.length}, v6 ${data.networks.asnV6.asn.length}; ` +
    `country v4 ${data.networks.countryV4.country.length}, v6 ${data.networks.countryV6.country.length}; ` +
    `AS names ${data.networks.asNames.size}; carrier prefixes ${data.carriers.keys.length}`,
);

const phones = phoneInputs(data, iterations);
const v4 = v4Inputs(data, iterations);
const v6 = v6Inputs(data, iterations);
console.log('\nwhole resolution (parse, validate, look up, classify):');
time('phone resolvePhone', phones, (p) => resolvePhone(p, data.carriers));
time('ipv4 resolveIp', v4, (ip) => resolveIp(ip, data.networks));
time('ipv6 resolveIp', v6, (ip) => resolveIp(ip, data.networks));

// The data lookups alone, on pre-parsed keys: what the in-memory structures cost.
console.log('\ndata lookups alone:');
const nationals = phones.map((p) => {
  const parsed = parsePhoneNumberFromString(p)!;
  return `${parsed.countryCallingCode} ${parsed.nationalNumber}`;
});
time('carrier prefix', nationals, (s) => {
  const space = s.indexOf(' ');
  return carrierFor(data.carriers, s.slice(0, space), s.slice(space + 1));
});
const v4Numbers = v4.map((ip) => ip.split('.').reduce((a, o) => a * 256 + Number(o), 0));
timeEach('ipv4 asn+country', v4Numbers, (a) => {
  findV4(data.networks.asnV4.bounds, a);
  return findV4(data.networks.countryV4.bounds, a);
});
const v6Halves = v6.map((ip) => {
  const value = BigInt(`0x${ip.replaceAll(':', '')}`);
  return [value >> 64n, value & ((1n << 64n) - 1n)] as const;
});
timeEach('ipv6 asn+country', v6Halves, ([hi, lo]) => {
  findV6(data.networks.asnV6.bounds, hi, lo);
  return findV6(data.networks.countryV6.bounds, hi, lo);
});
