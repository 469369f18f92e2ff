/**
 * The capability registry: one entry per capability, named exactly as the component key it feeds
 * (and as the key of the health endpoint's capabilities map and of `degraded_sources`).
 *
 * A snapshot capability is refreshed by a refresher job into a versioned binary snapshot in Redis
 * that every API node loads off the hot path and swaps in one assignment. A live capability is
 * looked up per request behind a circuit breaker; its feed is loaded into Redis by the same kind
 * of job, under a version the nodes learn the same way.
 */
import type { ComponentKey } from '../scoring/reason-codes.ts';

/** Sources a capability is built from; each is a location (file path or HTTP URL) set in config. */
export const FEEDS = {
  carrier: {
    env: 'FEED_CARRIER',
    description: 'Google libphonenumber carrier prefixes: a directory of <calling code>.bson files',
    layout: 'bson-dir',
  },
  asn: {
    env: 'FEED_ASN',
    description: 'Origin AS per routed range (@ip-location-db/asn layout)',
    // package.json: its version dates the data (feeds/as-of.ts).
    layout: ['asn-ipv4-num.csv', 'asn-ipv6-num.csv', 'package.json'],
  },
  ipCountry: {
    env: 'FEED_IP_COUNTRY',
    description: 'Registry country per allocated range (@ip-location-db/geo-whois-asn-country layout)',
    layout: ['geo-whois-asn-country-ipv4-num.csv', 'geo-whois-asn-country-ipv6-num.csv', 'package.json'],
  },
  hosting: {
    env: 'FEED_HOSTING_RANGES',
    description: 'Hosting and data-centre ranges the AS classification misses: address or CIDR per line',
    layout: 'file',
  },
  torExits: {
    env: 'FEED_TOR_EXITS',
    description: 'Tor exit addresses, one per line (the Tor Project bulk exit list)',
    layout: 'file',
  },
  vpnProxy: {
    env: 'FEED_VPN_PROXY_RANGES',
    description: 'VPN and proxy endpoints: `address-or-CIDR,vpn|proxy` per line',
    layout: 'file',
  },
  ndcRisk: {
    env: 'FEED_NDC_RISK',
    description: 'Numbering-range risk: `+prefix,elevated|ordinary` per line',
    layout: 'file',
  },
  reputation: {
    env: 'FEED_REPUTATION',
    description: 'Fraud reports: `subject,reports` per line (E.164 number or IP address)',
    layout: 'file',
  },
} as const satisfies Record<
  string,
  { env: `FEED_${string}`; description: string; layout: 'file' | 'bson-dir' | readonly string[] }
>;

export type FeedName = keyof typeof FEEDS;

export interface CapabilityDef {
  name: ComponentKey;
  kind: 'snapshot' | 'live';
  feeds: readonly FeedName[];
  /** Which subjects the capability evaluates; it is only named in `degraded_sources` for those. */
  subject: 'phone' | 'ip' | 'any';
  /** How often the refresher pulls the sources. */
  refreshEveryS: number;
  /** A snapshot not confirmed against its source for longer than this is stale: still used, but degraded. */
  freshnessS: number;
  /**
   * Data older than this (now minus the snapshot's `data_as_of`, the date of the data itself, not
   * of its last fetch) is stale: still used, but degraded, and a rule that reads absence from it
   * as evidence (unallocated address space) stops doing so. A source can be confirmed every hour
   * and still be months old: an npm package nobody publishes any more.
   */
  maxDataAgeS: number;
  /**
   * With no snapshot at all: `unavailable` makes the component's verdict unavailable; `degraded`
   * means the component still answers from what the code knows (libphonenumber's numbering plan,
   * line types), on less evidence.
   */
  whenMissing: 'unavailable' | 'degraded';
  /** Snapshot format, for operators reading Redis. */
  format: string;
}

const HOUR = 3600;
const DAY = 24 * HOUR;

export const CAPABILITIES: readonly CapabilityDef[] = [
  {
    name: 'caller_id_integrity',
    kind: 'snapshot',
    feeds: ['carrier'],
    subject: 'phone',
    refreshEveryS: 24 * HOUR,
    freshnessS: 7 * 24 * HOUR,
    // Carrier prefixes move when ranges are ported or reassigned between operators: a few hundred a
    // year in a country; libphonenumber publishes about every two weeks. 180 days of drift names the
    // wrong operator for a small share of numbers; past it the carrier check is not worth its name.
    maxDataAgeS: 180 * DAY,
    whenMissing: 'degraded',
    format:
      'FRSC binary: carrier prefix keys (Float64Array) and name indexes (Uint16Array), names in the JSON header. ' +
      'The numbering plan itself ships with libphonenumber-js and changes with its version.',
  },
  {
    name: 'ndc_range_risk',
    kind: 'snapshot',
    feeds: ['ndcRisk'],
    subject: 'phone',
    refreshEveryS: 6 * HOUR,
    freshnessS: 7 * 24 * HOUR,
    // The fraud team's range list follows regulators' numbering changes (months) and fraud campaigns
    // (weeks): a list not reviewed for 90 days misses the ranges of a whole season.
    maxDataAgeS: 90 * DAY,
    whenMissing: 'degraded',
    format: 'FRSC binary: prefix-to-level map in the JSON header (a few thousand entries at most).',
  },
  {
    name: 'reputation_ledger',
    kind: 'live',
    feeds: ['reputation'],
    subject: 'any',
    refreshEveryS: 5 * 60,
    freshnessS: 2 * HOUR,
    // The consortium export is daily; reports count for 180 days. Two missed exports and the base
    // lacks reports the other members already act on.
    maxDataAgeS: 2 * DAY,
    whenMissing: 'unavailable',
    format:
      'Redis hash per version in the ledger Redis: field = 128-bit HMAC-SHA-256 of the canonical subject under the server secret, value = reports.',
  },
  {
    name: 'ip_network_type',
    kind: 'snapshot',
    feeds: ['asn', 'ipCountry', 'hosting'],
    subject: 'ip',
    refreshEveryS: 24 * HOUR,
    freshnessS: 7 * 24 * HOUR,
    // The routing and allocation tables (oldest of the ASN, country and hosting feeds): RIRs allocate
    // and transfer space every day, so an old table calls new space unallocated. 120 days: the
    // upstream publishes monthly or more often, so this is several missed releases, while the share
    // of routed space allocated in that time is still small.
    maxDataAgeS: 120 * DAY,
    whenMissing: 'unavailable',
    format:
      'FRSC binary: ASN and country range tables (Uint32/BigUint64 bounds, values per row), AS names in ' +
      'the header, and the hosting range set.',
  },
  {
    name: 'ip_tor_exit',
    kind: 'snapshot',
    feeds: ['torExits'],
    subject: 'ip',
    refreshEveryS: 30 * 60,
    freshnessS: 6 * HOUR,
    // Exit relays come and go by the hour; the Tor Project's list is regenerated every 30 minutes.
    // A day-old list misses a noticeable share of the current exits.
    maxDataAgeS: 1 * DAY,
    whenMissing: 'unavailable',
    format: 'FRSC binary: range set (v4 and v6 bounds, kind per range).',
  },
  {
    name: 'ip_vpn_proxy',
    kind: 'snapshot',
    feeds: ['vpnProxy'],
    subject: 'ip',
    refreshEveryS: 6 * HOUR,
    freshnessS: 2 * 24 * HOUR,
    // Commercial VPN/proxy exports are weekly or daily; providers rotate endpoints over weeks.
    maxDataAgeS: 14 * DAY,
    whenMissing: 'unavailable',
    format: 'FRSC binary: range set (v4 and v6 bounds, kind 1 = vpn, 2 = proxy).',
  },
];

export type CapabilityName = ComponentKey;

export const CAPABILITY_BY_NAME: ReadonlyMap<string, CapabilityDef> = new Map(
  CAPABILITIES.map((c) => [c.name, c]),
);

/** `every`, `freshness` and the maximum data age with the overrides of config applied (seconds by capability name). */
export function withOverrides(
  def: CapabilityDef,
  refresh: Record<string, number>,
  freshness: Record<string, number>,
  maxDataAge: Record<string, number> = {},
): CapabilityDef {
  return {
    ...def,
    refreshEveryS: refresh[def.name] ?? def.refreshEveryS,
    freshnessS: freshness[def.name] ?? def.freshnessS,
    maxDataAgeS: maxDataAge[def.name] ?? def.maxDataAgeS,
  };
}

/** Stale: not confirmed against its source within the freshness limit. */
export function isStale(refreshedAtMs: number, freshnessS: number, nowMs: number): boolean {
  return nowMs - refreshedAtMs > freshnessS * 1000;
}

/** Data stale: the data itself (its `data_as_of`) is older than the capability's maximum data age. */
export function isDataStale(dataAsOfMs: number, maxDataAgeS: number, nowMs: number): boolean {
  return nowMs - dataAsOfMs > maxDataAgeS * 1000;
}
