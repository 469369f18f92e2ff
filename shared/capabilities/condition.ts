/**
 * How well a capability can answer right now, from what a node has loaded. The one place the
 * staleness (of the last confirmation, and of the data itself) and missing-snapshot rules live: the scorer names the same capabilities in
 * `degraded_sources` that health reports as degraded or unavailable.
 */
import { isDataStale, isStale, type CapabilityDef } from './registry.ts';

export type CapabilityStatus = 'ok' | 'degraded' | 'unavailable';

export interface Loaded {
  /** The node holds the snapshot's data (or, for a live capability, knows the version to look up). */
  present: boolean;
  /** When the source was last confirmed; undefined if never. */
  refreshedAtMs?: number;
  /** When the data itself was taken (the snapshot's `data_as_of`); undefined if it does not say. */
  dataAsOfMs?: number;
}

/** The data is older than the capability's maximum data age (unknown dates are not called stale). */
export function dataStale(def: CapabilityDef, dataAsOfMs: number | undefined, nowMs: number): boolean {
  return dataAsOfMs !== undefined && isDataStale(dataAsOfMs, def.maxDataAgeS, nowMs);
}

export function capabilityStatus(def: CapabilityDef, loaded: Loaded, nowMs: number): CapabilityStatus {
  if (!loaded.present) return def.whenMissing;
  if (
    loaded.refreshedAtMs === undefined ||
    isStale(loaded.refreshedAtMs, def.freshnessS, nowMs) ||
    dataStale(def, loaded.dataAsOfMs, nowMs)
  ) {
    return 'degraded';
  }
  return 'ok';
}
