/**
 * How well a capability can answer right now, from what a node has loaded. The one place the
 * staleness and missing-snapshot rules live: the scorer names the same capabilities in
 * `degraded_sources` that health reports as degraded or unavailable.
 */
import { isStale, type CapabilityDef } from './registry.ts';

export type CapabilityStatus = 'ok' | 'degraded' | 'unavailable';

export interface Loaded {
  /** The node holds the snapshot's data (or, for a live capability, knows the version to look up). */
  present: boolean;
  /** When the source was last confirmed; undefined if never. */
  refreshedAtMs?: number;
}

export function capabilityStatus(def: CapabilityDef, loaded: Loaded, nowMs: number): CapabilityStatus {
  if (!loaded.present) return def.whenMissing;
  if (loaded.refreshedAtMs === undefined || isStale(loaded.refreshedAtMs, def.freshnessS, nowMs)) {
    return 'degraded';
  }
  return 'ok';
}
