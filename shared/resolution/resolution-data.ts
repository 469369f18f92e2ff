/**
 * Everything subject resolution reads, loaded into memory once so a lookup does no I/O.
 * Built by `loadResolutionData()` in a composition root; a refresh can build a new one and swap
 * the reference in one assignment, since nothing here is mutated after loading.
 */
import { loadCarrierPrefixes, type CarrierPrefixes } from './carrier-prefixes.ts';
import { loadIpNetworks, type IpNetworks } from './ip-networks.ts';

export interface ResolutionData {
  carriers: CarrierPrefixes;
  networks: IpNetworks;
  /** Package versions of the data, for health and audit. */
  sources: { carrier: string; asn: string; ipCountry: string };
  loadMs: number;
}

/** Synchronous and CPU-bound (under a second here): call it before the node reports ready. */
export function loadResolutionData(): ResolutionData {
  const started = performance.now();
  const carriers = loadCarrierPrefixes();
  const networks = loadIpNetworks();
  return {
    carriers,
    networks,
    sources: { carrier: carriers.version, asn: networks.versions.asn, ipCountry: networks.versions.country },
    loadMs: Math.round(performance.now() - started),
  };
}

/** Bytes held in the typed arrays (strings and maps of names come on top; see the resolution bench). */
export function typedArrayBytes(data: ResolutionData): number {
  const { carriers, networks } = data;
  const arrays: ArrayBufferView[] = [
    carriers.keys,
    carriers.nameIndex,
    networks.asnV4.bounds.starts,
    networks.asnV4.bounds.ends,
    networks.asnV4.asn,
    networks.countryV4.bounds.starts,
    networks.countryV4.bounds.ends,
    networks.countryV4.country,
    ...Object.values(networks.asnV6.bounds),
    networks.asnV6.asn,
    ...Object.values(networks.countryV6.bounds),
    networks.countryV6.country,
  ];
  return arrays.reduce((sum, a) => sum + a.byteLength, 0);
}
