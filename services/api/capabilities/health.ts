/** The capabilities map of GET /v1/health, from this node's snapshots and breakers. */
import type { CapabilityStatus } from '../../../shared/capabilities/condition.ts';
import type { CapabilityDef } from '../../../shared/capabilities/registry.ts';
import type { BreakerState, LedgerLookup } from './ledger-lookup.ts';
import type { SnapshotCache } from './snapshot-cache.ts';

export interface CapabilityHealth {
  status: CapabilityStatus;
  kind: 'snapshot' | 'live';
  version?: string;
  refreshed_at?: string;
  age_s?: number;
  freshness_s: number;
  entries?: number;
  breaker?: BreakerState;
  last_error?: string;
  last_error_at?: string;
  consecutive_failures?: number;
}

export function capabilityHealth(
  defs: readonly CapabilityDef[],
  cache: SnapshotCache,
  ledger: LedgerLookup,
  nowMs = Date.now(),
): Record<string, CapabilityHealth> {
  const snaps = cache.current;
  const out: Record<string, CapabilityHealth> = {};
  for (const def of defs) {
    const state = snaps.states[def.name];
    let status = cache.status(def, nowMs, snaps);
    const h: CapabilityHealth = { status, kind: def.kind, freshness_s: def.freshnessS };
    if (def.kind === 'live') {
      h.breaker = ledger.state;
      // An open breaker answers nothing; a half-open one lets trial lookups through.
      if (h.breaker === 'open') status = 'unavailable';
      else if (h.breaker === 'half_open' && status === 'ok') status = 'degraded';
      h.status = status;
    }
    if (state?.meta) {
      h.version = state.meta.version;
      h.entries = state.meta.entries;
    }
    if (state?.refreshedAtMs !== undefined) {
      h.refreshed_at = new Date(state.refreshedAtMs).toISOString();
      h.age_s = Math.max(0, Math.round((nowMs - state.refreshedAtMs) / 1000));
    }
    const failure = state?.loadError
      ? { error: `this node could not load the current version: ${state.loadError}`, at: undefined }
      : state?.status?.last_error
        ? { error: state.status.last_error, at: state.status.last_error_at }
        : undefined;
    if (failure) {
      h.last_error = failure.error;
      if (failure.at) h.last_error_at = failure.at;
    }
    if (state?.status) h.consecutive_failures = state.status.consecutive_failures;
    out[def.name] = h;
  }
  return out;
}
