/**
 * The portal's Prometheus metrics, in a registry of its own (the portal process has no other),
 * served at /metrics on the portal port under the API's access rule (METRICS_TOKEN, else
 * loopback only).
 */
import { Counter, Registry } from 'prom-client';
import { processMetrics } from '../../shared/metrics-server.ts';

export interface PortalMetrics {
  registry: Registry;
  /** Accounts whose sign-in limit tripped: a likely password-guessing attack from many addresses. */
  signinAccountTripped: Counter;
}

export function createPortalMetrics(): PortalMetrics {
  const registry = new Registry();
  processMetrics(registry);
  return {
    registry,
    signinAccountTripped: new Counter({
      name: 'frs_portal_signin_account_limit_tripped_total',
      help: 'Accounts whose per-account sign-in limit tripped in a window (failed sign-ins from many addresses): a likely password-guessing attack.',
      registers: [registry],
    }),
  };
}
