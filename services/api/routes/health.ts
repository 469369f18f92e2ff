import { Router } from 'express';
import type { HealthResponse } from '../../../shared/contract/response.ts';
import { readBandRates } from '../../../shared/scoring/version-files.ts';
import { AS_RELEASED, type VersionState } from '../../../shared/scoring/version-state.ts';
import { SCORE_VERSIONS } from '../../../shared/scoring/versions.ts';
import type { CapabilityHealth } from '../capabilities/health.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { metricsAccess } from '../http/metrics-access.ts';
import type { ApiMetrics } from '../metrics.ts';

export interface HealthRouteDeps {
  /** The key replica and the first load of every capability are done. */
  ready: () => boolean;
  capabilities: () => Record<string, CapabilityHealth>;
  metrics: ApiMetrics;
  versions?: () => VersionState;
  /** Bearer token for /metrics; without one only loopback clients may read it. */
  metricsToken?: string;
}

const BAND_RATES = readBandRates();

/**
 * /livez and /readyz for orchestrators; GET /v1/health for operators (public); /metrics for
 * Prometheus (token or loopback only, see metrics-access.ts).
 */
export function healthRoutes(deps: HealthRouteDeps): Router {
  const router = Router();
  router.get('/livez', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', (_req, res) => {
    const ready = deps.ready();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'loading' });
  });
  router.get('/v1/health', (_req, res) => {
    const capabilities = deps.capabilities();
    const body: HealthResponse = {
      status: Object.values(capabilities).every((c) => c.status === 'ok') ? 'ok' : 'degraded',
      score_versions: scoreVersions(deps.versions?.() ?? AS_RELEASED),
      capabilities,
    };
    res.json(body);
  });
  router.get('/metrics', metricsAccess(deps.metricsToken), async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  // Registered after the GETs: any other method (TRACE, POST, ...) is a 405 with `Allow`, not a 404.
  // Not /metrics: to a caller it does not exist (metricsAccess), whatever the method.
  router.all(['/livez', '/readyz', '/v1/health'], methodNotAllowed(['GET']));
  return router;
}

function scoreVersions(state: VersionState): HealthResponse['score_versions'] {
  return SCORE_VERSIONS.map((v) => ({
    id: v.id,
    status: state.status.get(v.id) ?? v.status,
    default: v === state.default,
    challenger: v === state.challenger,
    hash: v.hash,
    band_floors: v.bandFloors,
    band_rates: BAND_RATES[v.id] ?? {},
  }));
}
