/**
 * A binary copy of the parsed resolution tables, so a process starts in tens of milliseconds
 * instead of spending a second or more of CPU and ~100 MiB of transient heap on the CSV files
 * (several API nodes start at once on a small machine).
 *
 * The file name carries a hash of the data packages' versions and of this layout's version: npm
 * packages are immutable per version, so a cache file never goes stale, and an upgrade simply
 * misses and rebuilds. Typed arrays are stored in the machine's byte order; the cache is local.
 * Layout: magic, header length, JSON header (names, sections), then each typed array 8-aligned.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AsNames } from './as-names.ts';
import { decodeSections, encodeSections, take, type Decoded, type Table } from './codec.ts';
import type { CarrierPrefixes } from './carrier-prefixes.ts';
import type { IpNetworks } from './ip-networks.ts';
import { v4Bounds } from './ip-ranges.ts';
import { sha256Hex } from '../sha256.ts';

export interface ResolutionTables {
  carriers: CarrierPrefixes;
  networks: IpNetworks;
}

const LAYOUT = 2;
const MAGIC = 0x52534652; // "FRSR"

/** Typed arrays of the carrier table, by a stable name. */
export function carrierArrays(carriers: CarrierPrefixes): Record<string, Table> {
  return { 'carrier.keys': carriers.keys, 'carrier.nameIndex': carriers.nameIndex };
}

/** Typed arrays of the network tables, by a stable name. */
export function networkArrays(networks: IpNetworks): Record<string, Table> {
  const { asnV4, asnV6, countryV4, countryV6 } = networks;
  return {
    'asnV4.starts': asnV4.bounds.starts,
    'asnV4.ends': asnV4.bounds.ends,
    'asnV4.asn': asnV4.asn,
    'asnV6.startHi': asnV6.bounds.startHi,
    'asnV6.startLo': asnV6.bounds.startLo,
    'asnV6.endHi': asnV6.bounds.endHi,
    'asnV6.endLo': asnV6.bounds.endLo,
    'asnV6.asn': asnV6.asn,
    'countryV4.starts': countryV4.bounds.starts,
    'countryV4.ends': countryV4.bounds.ends,
    'countryV4.country': countryV4.country,
    'countryV6.startHi': countryV6.bounds.startHi,
    'countryV6.startLo': countryV6.bounds.startLo,
    'countryV6.endHi': countryV6.bounds.endHi,
    'countryV6.endLo': countryV6.bounds.endLo,
    'countryV6.country': countryV6.country,
    ...networks.asNames.arrays('asNames'),
  };
}

/** Every typed array of the tables, by a stable name. */
export function tableArrays({ carriers, networks }: ResolutionTables): Record<string, Table> {
  return { ...carrierArrays(carriers), ...networkArrays(networks) };
}

/** The JSON side of the carrier table, stored in a header next to its arrays. */
export function carrierHeader(carriers: CarrierPrefixes) {
  return { maxPrefixLength: carriers.maxPrefixLength, carrierNames: carriers.names };
}

/**
 * The JSON side of the network tables: nothing now. The AS names were a JSON list of pairs here
 * until they moved into typed arrays (as-names.ts); `networksFrom` still reads that form.
 */
export function networkHeader(_networks: IpNetworks): Record<string, never> {
  return {};
}

/** The AS names: typed-array sections, or (written before those) a JSON list in the header. */
function asNamesFrom(decoded: Decoded, what: string): AsNames {
  if (decoded.arrays.has('asNames.asn')) {
    return new AsNames(
      take(decoded, 'asNames.asn', Uint32Array, what),
      take(decoded, 'asNames.offsets', Uint32Array, what),
      take(decoded, 'asNames.text', Uint8Array, what),
    );
  }
  const listed = (decoded.header as { asNames?: unknown }).asNames;
  if (!Array.isArray(listed)) throw new Error(`${what}: AS names are missing`);
  return AsNames.from(listed as [number, string][]);
}

export function carriersFrom(decoded: Decoded, what: string): CarrierPrefixes {
  const h = decoded.header as ReturnType<typeof carrierHeader>;
  if (!Array.isArray(h.carrierNames) || typeof h.maxPrefixLength !== 'number') {
    throw new Error(`${what}: carrier header is missing`);
  }
  return {
    keys: take(decoded, 'carrier.keys', Float64Array, what),
    nameIndex: take(decoded, 'carrier.nameIndex', Uint16Array, what),
    names: h.carrierNames,
    maxPrefixLength: h.maxPrefixLength,
  };
}

export function networksFrom(decoded: Decoded, what: string): IpNetworks {
  const v4 = (prefix: string) =>
    v4Bounds(
      take(decoded, `${prefix}.starts`, Uint32Array, what),
      take(decoded, `${prefix}.ends`, Uint32Array, what),
    );
  const v6 = (prefix: string) => ({
    startHi: take(decoded, `${prefix}.startHi`, BigUint64Array, what),
    startLo: take(decoded, `${prefix}.startLo`, BigUint64Array, what),
    endHi: take(decoded, `${prefix}.endHi`, BigUint64Array, what),
    endLo: take(decoded, `${prefix}.endLo`, BigUint64Array, what),
  });
  return {
    asnV4: { bounds: v4('asnV4'), asn: take(decoded, 'asnV4.asn', Uint32Array, what) },
    asnV6: { bounds: v6('asnV6'), asn: take(decoded, 'asnV6.asn', Uint32Array, what) },
    countryV4: { bounds: v4('countryV4'), country: take(decoded, 'countryV4.country', Uint16Array, what) },
    countryV6: { bounds: v6('countryV6'), country: take(decoded, 'countryV6.country', Uint16Array, what) },
    asNames: asNamesFrom(decoded, what),
  };
}

export function cacheFile(dir: string, versions: Record<string, string>): string {
  const key = sha256Hex(JSON.stringify({ LAYOUT, versions })).slice(0, 16);
  return join(dir, `resolution-${key}.bin`);
}

/** Writes atomically (temp file, then rename) and removes copies built from older versions. */
export function writeCache(file: string, tables: ResolutionTables): void {
  const header = { layout: LAYOUT, ...carrierHeader(tables.carriers), ...networkHeader(tables.networks) };
  const out = encodeSections(MAGIC, header, tableArrays(tables));
  const dir = join(file, '..');
  mkdirSync(dir, { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, out);
  renameSync(temp, file);
  const current = file.slice(dir.length + 1);
  for (const old of readdirSync(dir)) {
    if (/^resolution-[0-9a-f]{16}\.bin$/.test(old) && old !== current)
      rmSync(join(dir, old), { force: true });
  }
}

/**
 * The cached tables, or undefined when there is no copy or it is of another layout or damaged;
 * throws only when the file exists but cannot be read.
 */
export function readCache(file: string): ResolutionTables | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const decoded = decodeSections(MAGIC, bytes);
  if (!decoded || decoded.header.layout !== LAYOUT) return undefined;
  const what = `resolution cache ${file}`;
  return { carriers: carriersFrom(decoded, what), networks: networksFrom(decoded, what) };
}
