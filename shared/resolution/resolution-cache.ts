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
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CarrierPrefixes } from './carrier-prefixes.ts';
import type { IpNetworks } from './ip-networks.ts';

export interface ResolutionTables {
  carriers: CarrierPrefixes;
  networks: IpNetworks;
}

type Table = Uint16Array | Uint32Array | Float64Array | BigUint64Array;
const TYPES = { Uint16Array, Uint32Array, Float64Array, BigUint64Array } as const;
type TypeName = keyof typeof TYPES;

const LAYOUT = 1;
const MAGIC = 0x52534652; // "FRSR"

interface Header {
  layout: number;
  maxPrefixLength: number;
  carrierNames: string[];
  asNames: [number, string][];
  sections: { name: string; type: TypeName; offset: number; length: number }[];
}

/** Every typed array of the tables, by a stable name. */
export function tableArrays({ carriers, networks }: ResolutionTables): Record<string, Table> {
  const { asnV4, asnV6, countryV4, countryV6 } = networks;
  return {
    'carrier.keys': carriers.keys,
    'carrier.nameIndex': carriers.nameIndex,
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
  };
}

export function cacheFile(dir: string, versions: Record<string, string>): string {
  const key = createHash('sha256').update(JSON.stringify({ LAYOUT, versions })).digest('hex').slice(0, 16);
  return join(dir, `resolution-${key}.bin`);
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;

/** Writes atomically (temp file, then rename) and removes copies built from older versions. */
export function writeCache(file: string, tables: ResolutionTables): void {
  const arrays = tableArrays(tables);
  const sections: Header['sections'] = [];
  let size = 0;
  for (const [name, array] of Object.entries(arrays)) {
    sections.push({ name, type: array.constructor.name as TypeName, offset: size, length: array.length });
    size += align8(array.byteLength);
  }
  const header: Header = {
    layout: LAYOUT,
    maxPrefixLength: tables.carriers.maxPrefixLength,
    carrierNames: tables.carriers.names,
    asNames: [...tables.networks.asNames],
    sections,
  };
  const json = Buffer.from(JSON.stringify(header));
  const base = align8(8 + json.length);
  const out = Buffer.alloc(base + size);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(json.length, 4);
  json.copy(out, 8);
  for (const section of sections) {
    const array = arrays[section.name]!;
    out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), base + section.offset);
  }

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
  if (bytes.length < 8 || bytes.readUInt32LE(0) !== MAGIC) return undefined;
  const jsonLength = bytes.readUInt32LE(4);
  if (8 + jsonLength > bytes.length) return undefined;
  let header: Header;
  try {
    header = JSON.parse(bytes.toString('utf8', 8, 8 + jsonLength)) as Header;
  } catch {
    return undefined;
  }
  if (header.layout !== LAYOUT || !Array.isArray(header.sections)) return undefined;

  const base = align8(8 + jsonLength);
  const arrays = new Map<string, Table>();
  for (const { name, type, offset, length } of header.sections) {
    const Type = TYPES[type];
    if (!Type) return undefined;
    const start = base + offset;
    const end = start + length * Type.BYTES_PER_ELEMENT;
    if (end > bytes.length) return undefined;
    // A copy, so each table owns its memory and the file buffer (with its JSON) can be freed.
    const copy = new Uint8Array(end - start);
    copy.set(bytes.subarray(start, end));
    arrays.set(name, new Type(copy.buffer));
  }
  const take = <T extends Table>(name: string, type: new (...args: never[]) => T): T => {
    const array = arrays.get(name);
    if (!(array instanceof type)) throw new Error(`resolution cache ${file}: section ${name} is missing`);
    return array;
  };
  const v4 = (prefix: string) => ({
    starts: take(`${prefix}.starts`, Uint32Array),
    ends: take(`${prefix}.ends`, Uint32Array),
  });
  const v6 = (prefix: string) => ({
    startHi: take(`${prefix}.startHi`, BigUint64Array),
    startLo: take(`${prefix}.startLo`, BigUint64Array),
    endHi: take(`${prefix}.endHi`, BigUint64Array),
    endLo: take(`${prefix}.endLo`, BigUint64Array),
  });
  return {
    carriers: {
      keys: take('carrier.keys', Float64Array),
      nameIndex: take('carrier.nameIndex', Uint16Array),
      names: header.carrierNames,
      maxPrefixLength: header.maxPrefixLength,
    },
    networks: {
      asnV4: { bounds: v4('asnV4'), asn: take('asnV4.asn', Uint32Array) },
      asnV6: { bounds: v6('asnV6'), asn: take('asnV6.asn', Uint32Array) },
      countryV4: { bounds: v4('countryV4'), country: take('countryV4.country', Uint16Array) },
      countryV6: { bounds: v6('countryV6'), country: take('countryV6.country', Uint16Array) },
      asNames: new Map(header.asNames),
    },
  };
}
