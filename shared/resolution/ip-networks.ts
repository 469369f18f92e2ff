/**
 * Address-range tables from the @ip-location-db npm packages, loaded into typed arrays:
 * - `@ip-location-db/asn`: origin AS number and AS name per routed range (RouteViews BGP tables
 *   and DB-IP, CC BY 4.0);
 * - `@ip-location-db/geo-whois-asn-country`: registry (whois) country per allocated range.
 * Each table is a set of disjoint ranges with the value in a parallel array indexed by row.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AsNames } from './as-names.ts';
import { BIGINT_BOUNDS, flattenRanges, NUMBER_BOUNDS, type Segments } from './flatten-ranges.ts';
import { toV4Bounds, toV6Bounds, type V4Bounds, type V6Bounds } from './ip-ranges.ts';
import { readV4Csv, readV6Csv, textField, uintField, type CsvRows } from './range-csv.ts';

export interface AsnTable<Bounds> {
  bounds: Bounds;
  asn: Uint32Array;
}

/** Countries are two ASCII letters packed into 16 bits (first letter high), see `countryAt`. */
export interface CountryTable<Bounds> {
  bounds: Bounds;
  country: Uint16Array;
}

export interface IpNetworks {
  asnV4: AsnTable<V4Bounds>;
  asnV6: AsnTable<V6Bounds>;
  countryV4: CountryTable<V4Bounds>;
  countryV6: CountryTable<V6Bounds>;
  /** AS name per AS number; one entry per AS, not per row; typed arrays, not a Map (as-names.ts). */
  asNames: AsNames;
}

export function countryAt(table: CountryTable<unknown>, row: number): string {
  const packed = table.country[row]!;
  return String.fromCharCode(packed >> 8, packed & 0xff);
}

/** Decodes each row's AS number (and records its name), then keeps it per flattened segment. */
function asnValues(
  rows: CsvRows<unknown>,
  segments: Segments<unknown>,
  names: Map<number, string>,
): Uint32Array {
  const { bytes, tailStart, tailEnd } = rows;
  const perRow = new Uint32Array(rows.length);
  for (let row = 0; row < rows.length; row++) {
    const from = tailStart[row]!;
    const to = tailEnd[row]!;
    const comma = bytes.indexOf(0x2c, from);
    if (comma < 0 || comma >= to) throw new Error(`asn CSV: row ${row + 1} has no name column`);
    const asn = uintField(bytes, from, comma);
    perRow[row] = asn;
    if (!names.has(asn)) names.set(asn, textField(bytes, comma + 1, to));
  }
  return Uint32Array.from(segments.rows, (row) => perRow[row]!);
}

function countryValues(rows: CsvRows<unknown>, segments: Segments<unknown>): Uint16Array {
  const { bytes, tailStart, tailEnd } = rows;
  return Uint16Array.from(segments.rows, (row) => {
    const from = tailStart[row]!;
    if (tailEnd[row]! - from !== 2) throw new Error(`country CSV: row ${row + 1} is not a two-letter code`);
    return (bytes[from]! << 8) | bytes[from + 1]!;
  });
}

function v4Table<Value>(
  bytes: Buffer,
  file: string,
  values: (rows: CsvRows<number>, segments: Segments<number>) => Value,
) {
  const rows = readV4Csv(bytes);
  const segments = flattenRanges(rows.starts, rows.ends, NUMBER_BOUNDS, file);
  return { bounds: toV4Bounds(segments.starts, segments.ends), values: values(rows, segments) };
}

function v6Table<Value>(
  bytes: Buffer,
  file: string,
  values: (rows: CsvRows<bigint>, segments: Segments<bigint>) => Value,
) {
  const rows = readV6Csv(bytes);
  const segments = flattenRanges(rows.starts, rows.ends, BIGINT_BOUNDS, file);
  return { bounds: toV6Bounds(segments.starts, segments.ends), values: values(rows, segments) };
}

export const NETWORK_FILES = {
  asnV4: 'asn-ipv4-num.csv',
  asnV6: 'asn-ipv6-num.csv',
  countryV4: 'geo-whois-asn-country-ipv4-num.csv',
  countryV6: 'geo-whois-asn-country-ipv6-num.csv',
} as const;

/** Reads and indexes the four CSV files, given the two packages' directories. */
export function loadIpNetworks(asnDir: string, countryDir: string): IpNetworks {
  const read = (dir: string, file: string) => readFileSync(join(dir, file));
  return buildIpNetworks({
    asnV4: read(asnDir, NETWORK_FILES.asnV4),
    asnV6: read(asnDir, NETWORK_FILES.asnV6),
    countryV4: read(countryDir, NETWORK_FILES.countryV4),
    countryV6: read(countryDir, NETWORK_FILES.countryV6),
  });
}

/** Indexes the four CSV files' contents (see NETWORK_FILES). */
export function buildIpNetworks(files: Record<keyof typeof NETWORK_FILES, Buffer>): IpNetworks {
  const asNames = new Map<number, string>();
  const asn = (rows: CsvRows<unknown>, segments: Segments<unknown>) => asnValues(rows, segments, asNames);

  const asnV4 = v4Table(files.asnV4, NETWORK_FILES.asnV4, asn);
  const asnV6 = v6Table(files.asnV6, NETWORK_FILES.asnV6, asn);
  const countryV4 = v4Table(files.countryV4, NETWORK_FILES.countryV4, countryValues);
  const countryV6 = v6Table(files.countryV6, NETWORK_FILES.countryV6, countryValues);

  return {
    asnV4: { bounds: asnV4.bounds, asn: asnV4.values },
    asnV6: { bounds: asnV6.bounds, asn: asnV6.values },
    countryV4: { bounds: countryV4.bounds, country: countryV4.values },
    countryV6: { bounds: countryV6.bounds, country: countryV6.values },
    asNames: AsNames.from(asNames),
  };
}
