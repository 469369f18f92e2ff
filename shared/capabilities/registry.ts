/**
 * The capability registry: one entry per capability, named exactly as the component key it feeds
 * (and as the key of the health endpoint's capabilities map and of `degraded_sources`).
 *
 * A snapshot capability is refreshed by a refresher job into a versioned binary snapshot in Redis
 * that every API node loads off the hot path and swaps in one assignment. A live capability is
 * looked up per request behind a circuit breaker; its feed is loaded into Redis by the same kind
 * of job, under a version the nodes learn the same way.
 */
import type { CapabilityDefinition } from './definition.ts';
import { CAPABILITY_DEFINITIONS, type CapabilityDefinitions } from './index.ts';
import type { FeedLimits } from './feeds/importers/imported-feed.ts';
import type { FeedName, FeedSource } from './source.ts';

type ComponentKey = CapabilityDefinitions['key'];

/**
 * Every feed, by name, as its capability declares it (source.ts): the registry of feeds is the
 * union of the capabilities' own `sources`. A name or FEED_* variable declared twice is refused
 * when this module loads.
 */
export const FEEDS: Readonly<Record<string, FeedSource>> = feedsOf(CAPABILITY_DEFINITIONS);

export type { FeedName };

/** What each list feed may hold, as its source declares (`limits`). */
export const FEED_LIMITS: Readonly<Record<FeedName, FeedLimits>> = Object.fromEntries(
  Object.entries(FEEDS).flatMap(([name, s]) => (s.limits ? [[name, s.limits]] : [])),
);

/** A list feed's limits; a feed that declares none cannot be imported into. */
export function feedLimits(feed: FeedName): FeedLimits {
  const limits = FEED_LIMITS[feed];
  if (!limits)
    throw new Error(`feed ${feed} declares no limits (source.ts): nothing can be imported into it`);
  return limits;
}

/** Which capability declares each feed. */
export const FEED_OWNER: ReadonlyMap<FeedName, ComponentKey> = new Map(
  CAPABILITY_DEFINITIONS.flatMap((c) => Object.keys(c.sources).map((f) => [f, c.key] as const)),
);

export function feedsOf(
  defs: readonly Pick<CapabilityDefinition, 'key' | 'sources'>[],
): Record<string, FeedSource> {
  const out: Record<string, FeedSource> = {};
  const envs = new Set<string>();
  for (const def of defs) {
    for (const [name, source] of Object.entries(def.sources)) {
      if (out[name]) throw new Error(`${def.key}: feed ${name} is declared twice`);
      if (envs.has(source.env)) throw new Error(`${def.key}: ${source.env} is declared twice`);
      out[name] = source;
      envs.add(source.env);
    }
  }
  return out;
}

/** A capability's registry entry: how it is refreshed and served (shared/capabilities/definition.ts). */
export type CapabilityDef = Pick<
  CapabilityDefinition,
  'kind' | 'subject' | 'freshnessS' | 'whenMissing' | 'format'
> & {
  name: ComponentKey;
  /** Its feeds' names, in the order it declares them. */
  feeds: readonly FeedName[];
  /** How often the refresher pulls its sources: as often as the most frequent of them asks. */
  refreshEveryS: number;
  /**
   * Data older than this (now minus the snapshot's `data_as_of`, the date of the data itself, not
   * of its last fetch) is stale: still used, but degraded, and a rule that reads absence from it
   * as evidence (unallocated address space) stops doing so. The smallest of its sources' maxima.
   */
  maxDataAgeS: number;
  /** Its feeds that name no publisher: their data changes only with a release (source.ts `unpublished`). */
  withoutPublisher: readonly FeedName[];
};

/**
 * How often the refresher rebuilds a capability with no feed (network_velocity, counted from the
 * score stream): within seconds of a count, so a ring working through several organisations shows
 * in the same hour. Such data is as old as its last build, so its maximum data age is its freshness.
 */
export const COUNTED_REFRESH_S = 5;

/**
 * A live capability with no feed (phone_live_lookup) asks its provider per request and keeps
 * nothing to refresh, load or report as a snapshot: the registry of refreshed and served
 * capabilities leaves it out. Its component, codes and points come from the definitions list.
 */
export const askedPerRequest = (c: { kind: string; sources: Readonly<Record<string, unknown>> }) =>
  c.kind === 'live' && Object.keys(c.sources).length === 0;

/** The registry entries of shared/capabilities/index.ts, in its order. */
export const CAPABILITIES: readonly CapabilityDef[] = CAPABILITY_DEFINITIONS.filter(
  (c) => !askedPerRequest(c),
).map((c) => ({
  name: c.key,
  kind: c.kind,
  feeds: Object.keys(c.sources),
  subject: c.subject,
  refreshEveryS: Math.min(
    ...Object.values(c.sources).map((s) => s.refreshEveryS),
    ...(Object.keys(c.sources).length === 0 ? [COUNTED_REFRESH_S] : []),
  ),
  freshnessS: c.freshnessS,
  maxDataAgeS: Math.min(
    ...Object.values(c.sources).map((s) => s.maxDataAgeS),
    ...(Object.keys(c.sources).length === 0 ? [c.freshnessS] : []),
  ),
  whenMissing: c.whenMissing,
  format: c.format,
  withoutPublisher: Object.entries(c.sources)
    .filter(([, s]) => s.publishers.length === 0)
    .map(([feed]) => feed),
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
