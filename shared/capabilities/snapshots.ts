/**
 * Building a snapshot capability's data from its fetched feeds, and its binary form in Redis.
 * `build` validates as it parses (a malformed line is a FeedError naming the line); the size
 * checks against the current snapshot live in refresh.ts.
 */
import { buildCarrierPrefixes, type CarrierPrefixes } from '../resolution/carrier-prefixes.ts';
import { buildIpNetworks, NETWORK_FILES, type IpNetworks } from '../resolution/ip-networks.ts';
import {
  carrierArrays,
  carrierHeader,
  carriersFrom,
  networkArrays,
  networkHeader,
  networksFrom,
} from '../resolution/resolution-cache.ts';
import { decodeSections, encodeSections } from './codec.ts';
import { FeedError } from './feeds/feed-error.ts';
import { NDC_LEVELS, parseNdcFeed, type NdcLevel, type NdcRisk } from './feeds/ndc-feed.ts';
import { parseRangeFeed } from './feeds/range-feed.ts';
import { buildRangeSet, rangeSetArrays, rangeSetFrom, type RangeSet } from './range-set.ts';
import type { FeedName } from './registry.ts';

/** The in-memory data of each snapshot capability. */
export interface SnapshotData {
  caller_id_integrity: CarrierPrefixes;
  ndc_range_risk: NdcRisk;
  ip_network_type: { networks: IpNetworks; hosting: RangeSet };
  ip_tor_exit: RangeSet;
  ip_vpn_proxy: RangeSet;
}

export type SnapshotName = keyof SnapshotData;

export const VPN_PROXY_KINDS = ['vpn', 'proxy'] as const;

/** Bump when the binary form of any snapshot changes: nodes ignore snapshots of another format. */
export const SNAPSHOT_FORMAT = 1;
const MAGIC = 0x43534652; // "FRSC"

export type FeedFiles = Partial<Record<FeedName, Map<string, Buffer>>>;

export interface BuiltSnapshot {
  payload: Buffer;
  /** Entries in the source, for the empty and shrink checks. */
  entries: number;
}

function file(files: FeedFiles, feed: FeedName, name = ''): Buffer {
  const bytes = files[feed]?.get(name);
  if (!bytes) throw new FeedError(`${feed}: ${name || 'file'} missing`);
  return bytes;
}

/**
 * Runs a parser, turning anything it throws into a FeedError naming the feed, and refuses a feed
 * with no entries: an empty download is an outage upstream, never "nothing is listed any more".
 */
function parsing<T>(feed: FeedName, fn: () => T, count: (t: T) => number): T {
  let out: T;
  try {
    out = fn();
  } catch (err) {
    throw new FeedError(`${feed}: ${(err as Error).message}`);
  }
  if (count(out) === 0) throw new FeedError(`${feed}: no entries`);
  return out;
}

const length = (x: { length: number }) => x.length;

const encode = (header: object, arrays: Parameters<typeof encodeSections>[2]) =>
  encodeSections(MAGIC, { format: SNAPSHOT_FORMAT, ...header }, arrays);

export function buildSnapshot(name: SnapshotName, files: FeedFiles): BuiltSnapshot {
  switch (name) {
    case 'caller_id_integrity': {
      const carriers = parsing(
        'carrier',
        () => buildCarrierPrefixes(files.carrier ?? new Map()),
        (c) => c.keys.length,
      );
      return {
        payload: encode(carrierHeader(carriers), carrierArrays(carriers)),
        entries: carriers.keys.length,
      };
    }
    case 'ndc_range_risk': {
      const risk = parsing(
        'ndcRisk',
        () => parseNdcFeed(file(files, 'ndcRisk')),
        (r) => r.size,
      );
      return { payload: encode({ ndc: [...risk] }, {}), entries: risk.size };
    }
    case 'ip_network_type': {
      const networks = parsing(
        'asn',
        () =>
          buildIpNetworks({
            asnV4: file(files, 'asn', NETWORK_FILES.asnV4),
            asnV6: file(files, 'asn', NETWORK_FILES.asnV6),
            countryV4: file(files, 'ipCountry', NETWORK_FILES.countryV4),
            countryV6: file(files, 'ipCountry', NETWORK_FILES.countryV6),
          }),
        (n) => n.asnV4.asn.length * n.countryV4.country.length,
      );
      const hostingEntries = parsing('hosting', () => parseRangeFeed(file(files, 'hosting')), length);
      const hosting = buildRangeSet(hostingEntries);
      return {
        payload: encode(networkHeader(networks), {
          ...networkArrays(networks),
          ...rangeSetArrays(hosting, 'hosting'),
        }),
        // The shrink check of a refresh compares this total, which the routing table dominates.
        entries: networks.asnV4.asn.length + networks.asnV6.asn.length + hostingEntries.length,
      };
    }
    case 'ip_tor_exit': {
      const entries = parsing('torExits', () => parseRangeFeed(file(files, 'torExits')), length);
      return { payload: encode({}, rangeSetArrays(buildRangeSet(entries), 'set')), entries: entries.length };
    }
    case 'ip_vpn_proxy': {
      const entries = parsing(
        'vpnProxy',
        () => parseRangeFeed(file(files, 'vpnProxy'), VPN_PROXY_KINDS),
        length,
      );
      return { payload: encode({}, rangeSetArrays(buildRangeSet(entries), 'set')), entries: entries.length };
    }
  }
}

/** The snapshot's data; throws when the payload is not a snapshot of this format. */
export function decodeSnapshot<N extends SnapshotName>(name: N, payload: Buffer): SnapshotData[N] {
  const what = `snapshot ${name}`;
  const decoded = decodeSections(MAGIC, payload);
  if (!decoded || decoded.header.format !== SNAPSHOT_FORMAT)
    throw new Error(`${what}: not format ${SNAPSHOT_FORMAT}`);
  const data: { [K in SnapshotName]: () => SnapshotData[K] } = {
    caller_id_integrity: () => carriersFrom(decoded, what),
    ndc_range_risk: () => {
      const pairs = decoded.header.ndc;
      if (!Array.isArray(pairs)) throw new Error(`${what}: prefix map is missing`);
      return new Map(
        (pairs as [string, NdcLevel][]).filter(([p, l]) => typeof p === 'string' && NDC_LEVELS.includes(l)),
      );
    },
    ip_network_type: () => ({
      networks: networksFrom(decoded, what),
      hosting: rangeSetFrom(decoded, 'hosting', what),
    }),
    ip_tor_exit: () => rangeSetFrom(decoded, 'set', what),
    ip_vpn_proxy: () => rangeSetFrom(decoded, 'set', what),
  };
  return data[name]();
}
