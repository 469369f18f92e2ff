/** The capabilities map of GET /v1/health, from this node's snapshots and breakers. */
import type { CapabilityStatus } from '../../../shared/capabilities/condition.ts';
import type { BreakerState, Capability } from '../../../shared/capabilities/model.ts';
import type { PhoneLookupHealth } from '../../../shared/contract/response.ts';
import type { PhoneLookup } from './phone-lookup.ts';
import type { SnapshotCache } from './snapshot-cache.ts';

export interface CapabilityHealth {
  status: CapabilityStatus;
  kind: 'snapshot' | 'live';
  version?: string;
  refreshed_at?: string;
  age_s?: number;
  freshness_s: number;
  entries?: number;
  data_as_of?: string;
  records?: number;
  max_data_age_s: number;
  stale?: boolean;
  breaker?: BreakerState;
  last_error?: string;
  last_error_at?: string;
  consecutive_failures?: number;
  feeds_without_publisher?: string[];
}

/** What health says of a capability Redis has no version of and whose refresh never failed. */
export const NOT_PUBLISHED =
  'no snapshot published yet: the refresher builds it (`npm run refresh -- --missing` builds it now)';

export function capabilityHealth(
  capabilities: readonly Capability[],
  cache: SnapshotCache,
  nowMs = Date.now(),
): Record<string, CapabilityHealth> {
  const snaps = cache.current;
  const out: Record<string, CapabilityHealth> = {};
  for (const cap of capabilities) {
    const state = snaps.states[cap.name];
    const h: CapabilityHealth = {
      ...cap.serving(cache.status(cap, nowMs, snaps)),
      kind: cap.kind,
      freshness_s: cap.def.freshnessS,
      max_data_age_s: cap.def.maxDataAgeS,
    };
    if (state?.meta) {
      h.version = state.meta.version;
      h.entries = state.meta.entries;
      h.records = state.meta.records ?? state.meta.entries;
    }
    if (state?.meta?.data_as_of && state.dataAsOfMs !== undefined) {
      h.data_as_of = new Date(state.dataAsOfMs).toISOString();
      h.stale = cache.dataStale(cap, nowMs, snaps);
    }
    if (state?.refreshedAtMs !== undefined) {
      h.refreshed_at = new Date(state.refreshedAtMs).toISOString();
      h.age_s = Math.max(0, Math.round((nowMs - state.refreshedAtMs) / 1000));
    }
    const failure = state?.loadError
      ? { error: `this node could not load the current version: ${state.loadError}`, at: undefined }
      : state?.status?.last_error
        ? { error: state.status.last_error, at: state.status.last_error_at }
        : !state?.meta
          ? { error: NOT_PUBLISHED, at: undefined }
          : undefined;
    if (failure) {
      h.last_error = failure.error;
      if (failure.at) h.last_error_at = failure.at;
    }
    if (state?.status) h.consecutive_failures = state.status.consecutive_failures;
    if (cap.def.withoutPublisher.length > 0) h.feeds_without_publisher = [...cap.def.withoutPublisher];
    out[cap.name] = h;
  }
  return out;
}

/** Health's `phone_lookup`: whether this node may ask a provider, which, and its breaker's state. */
export function phoneLookupHealth(
  lookup: Pick<PhoneLookup, 'provider' | 'state'> | undefined,
): PhoneLookupHealth {
  return lookup
    ? { configured: true, provider: lookup.provider, breaker: lookup.state }
    : { configured: false };
}
