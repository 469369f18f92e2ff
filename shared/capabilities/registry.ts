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
import type { CapabilityDefinition } from './definition.ts';
import { CAPABILITY_DEFINITIONS } from './index.ts';

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

/** A capability's registry entry: how it is refreshed and served (shared/capabilities/definition.ts). */
export type CapabilityDef = Pick<
  CapabilityDefinition,
  'kind' | 'feeds' | 'subject' | 'refreshEveryS' | 'freshnessS' | 'maxDataAgeS' | 'whenMissing' | 'format'
> & { name: ComponentKey };

/** The registry entries of shared/capabilities/index.ts, in its order. */
export const CAPABILITIES: readonly CapabilityDef[] = CAPABILITY_DEFINITIONS.map((c) => ({
  name: c.key,
  kind: c.kind,
  feeds: c.feeds,
  subject: c.subject,
  refreshEveryS: c.refreshEveryS,
  freshnessS: c.freshnessS,
  maxDataAgeS: c.maxDataAgeS,
  whenMissing: c.whenMissing,
  format: c.format,
}));

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

/** Every capability with this deployment's overrides (CAPABILITY_REFRESH_S, _FRESHNESS_S, _MAX_DATA_AGE_S). */
export function configuredCapabilities(cfg: {
  CAPABILITY_REFRESH_S: Record<string, number>;
  CAPABILITY_FRESHNESS_S: Record<string, number>;
  CAPABILITY_MAX_DATA_AGE_S: Record<string, number>;
}): CapabilityDef[] {
  return CAPABILITIES.map((def) =>
    withOverrides(def, cfg.CAPABILITY_REFRESH_S, cfg.CAPABILITY_FRESHNESS_S, cfg.CAPABILITY_MAX_DATA_AGE_S),
  );
}

/** Stale: not confirmed against its source within the freshness limit. */
export function isStale(refreshedAtMs: number, freshnessS: number, nowMs: number): boolean {
  return nowMs - refreshedAtMs > freshnessS * 1000;
}

/** Data stale: the data itself (its `data_as_of`) is older than the capability's maximum data age. */
export function isDataStale(dataAsOfMs: number, maxDataAgeS: number, nowMs: number): boolean {
  return nowMs - dataAsOfMs > maxDataAgeS * 1000;
}
