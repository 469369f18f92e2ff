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
    layout: ['asn-ipv4-num.csv', 'asn-ipv6-num.csv'],
  },
  ipCountry: {
    env: 'FEED_IP_COUNTRY',
    description: 'Registry country per allocated range (@ip-location-db/geo-whois-asn-country layout)',
    layout: ['geo-whois-asn-country-ipv4-num.csv', 'geo-whois-asn-country-ipv6-num.csv'],
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
   * With no snapshot at all: `unavailable` makes the component's verdict unavailable; `degraded`
   * means the component still answers from what the code knows (libphonenumber's numbering plan,
   * line types), on less evidence.
   */
  whenMissing: 'unavailable' | 'degraded';
  /** Snapshot format, for operators reading Redis. */
  format: string;
}

const HOUR = 3600;

export const CAPABILITIES: readonly CapabilityDef[] = [
  {
    name: 'caller_id_integrity',
    kind: 'snapshot',
    feeds: ['carrier'],
    subject: 'phone',
    refreshEveryS: 24 * HOUR,
    freshnessS: 7 * 24 * HOUR,
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
    whenMissing: 'unavailable',
    format: 'FRSC binary: range set (v4 and v6 bounds, kind 1 = vpn, 2 = proxy).',
  },
];

export type CapabilityName = ComponentKey;

export const CAPABILITY_BY_NAME: ReadonlyMap<string, CapabilityDef> = new Map(
  CAPABILITIES.map((c) => [c.name, c]),
);

/** `every` and `freshness` with the overrides of config applied (seconds by capability name). */
export function withOverrides(
  def: CapabilityDef,
  refresh: Record<string, number>,
  freshness: Record<string, number>,
): CapabilityDef {
  return {
    ...def,
    refreshEveryS: refresh[def.name] ?? def.refreshEveryS,
    freshnessS: freshness[def.name] ?? def.freshnessS,
  };
}

/** Stale: not confirmed against its source within the freshness limit. */
export function isStale(refreshedAtMs: number, freshnessS: number, nowMs: number): boolean {
  return nowMs - refreshedAtMs > freshnessS * 1000;
}
