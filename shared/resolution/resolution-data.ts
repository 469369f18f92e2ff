/**
 * Everything subject resolution reads, loaded into memory once so a lookup does no I/O.
 * Built by `loadResolutionData()` in a composition root; a refresh can build a new one and swap
 * the reference in one assignment, since nothing here is mutated after loading.
 */
import { fileURLToPath } from 'node:url';
import { loadCarrierPrefixes } from './carrier-prefixes.ts';
import { dataPackages } from './data-packages.ts';
import { loadIpNetworks } from './ip-networks.ts';
import { cacheFile, readCache, tableArrays, writeCache, type ResolutionTables } from './resolution-cache.ts';
import { errorMessage } from '../error-message.ts';

export interface ResolutionData extends ResolutionTables {
  /** Package versions of the data, for health and audit. */
  sources: { carrier: string; asn: string; ipCountry: string };
  /** Parsed from the packages' files, or read from the binary cache of an earlier parse. */
  origin: 'packages' | 'cache';
  /** Why the cache could not be read or written, if so (the data is loaded regardless). */
  cacheError?: string;
  loadMs: number;
}

export interface LoadOptions {
  /** Directory of the binary cache (resolution-cache.ts); null to parse the packages every time. */
  cacheDir?: string | null;
}

const DEFAULT_CACHE_DIR = fileURLToPath(new URL('../../.stack/cache', import.meta.url));

/** Synchronous and CPU-bound: call it before the node reports ready. */
export function loadResolutionData(options: LoadOptions = {}): ResolutionData {
  const started = performance.now();
  const packages = dataPackages();
  const sources = {
    carrier: packages.carrier.version,
    asn: packages.asn.version,
    ipCountry: packages.ipCountry.version,
  };
  const cacheDir = options.cacheDir === undefined ? DEFAULT_CACHE_DIR : options.cacheDir;
  const file = cacheDir === null ? undefined : cacheFile(cacheDir, sources);
  const finish = (tables: ResolutionTables, origin: ResolutionData['origin'], cacheError?: string) => ({
    ...tables,
    sources,
    origin,
    ...(cacheError ? { cacheError } : {}),
    loadMs: Math.round(performance.now() - started),
  });

  // The cache only saves time: failing to read or write it must never stop the node.
  let cacheError: string | undefined;
  if (file) {
    try {
      const cached = readCache(file);
      if (cached) return finish(cached, 'cache');
    } catch (err) {
      cacheError = `reading ${file}: ${errorMessage(err)}`;
    }
  }

  const tables: ResolutionTables = {
    carriers: loadCarrierPrefixes(packages.carrier.dir),
    networks: loadIpNetworks(packages.asn.dir, packages.ipCountry.dir),
  };
  if (file && cacheError === undefined) {
    try {
      writeCache(file, tables);
    } catch (err) {
      cacheError = `writing ${file}: ${errorMessage(err)}`;
    }
  }
  return finish(tables, 'packages', cacheError);
}

/** Bytes held in the typed arrays (AS and carrier names come on top; see the resolution bench). */
export function typedArrayBytes(data: ResolutionTables): number {
  return Object.values(tableArrays(data)).reduce((sum, a) => sum + a.byteLength, 0);
}
