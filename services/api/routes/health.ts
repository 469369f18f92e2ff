import { Router } from 'express';
import { headerRefs, responseRef as r, schemaRef } from '../../../shared/contract/openapi.ts';
import type { DeploymentTopology, HealthResponse } from '../../../shared/contract/response.ts';
import { readBandRates } from '../../../shared/scoring/version-files.ts';
import { AS_RELEASED, type VersionState } from '../../../shared/scoring/version-state.ts';
import { SCORE_VERSIONS } from '../../../shared/scoring/versions.ts';
import type { CapabilityHealth } from '../capabilities/health.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { metricsAccess } from '../../../shared/metrics-access.ts';
import { operation } from '../http/operation.ts';
import type { ApiMetrics } from '../metrics.ts';

export interface HealthRouteDeps {
  /** The key replica and the first load of every capability are done. */
  ready: () => boolean;
  capabilities: () => Record<string, CapabilityHealth>;
  /** Node counts per engine (topology.ts). */
  topology: () => DeploymentTopology;
  metrics: ApiMetrics;
  versions?: () => VersionState;
  /** Bearer token for /metrics; without one only loopback clients may read it. */
  metricsToken?: string;
}

const BAND_RATES = readBandRates();

/** The answers every public operation can give besides its own. */
const PUBLIC_ERRORS = {
  '404': r('NotFound'),
  // The per-address budget of refused requests applies to every route.
  '429': r('RateLimited'),
};

const probe = (description: string) => ({
  description,
  headers: headerRefs('X-Request-Id'),
  content: { 'application/json': { schema: schemaRef('ProbeResponse') } },
});

/** GET /v1/health, /livez and /readyz in the OpenAPI document. */
export const healthOperations = [
  operation('get', '/v1/health', {
    operationId: 'health',
    tags: ['operations'],
    summary: 'Capabilities and score versions',
    security: [],
    responses: {
      '200': {
        description:
          'Capability status keyed by component key, the score versions, and how many nodes of each engine ' +
          'the API runs on (counts only, no addresses).',
        headers: headerRefs('X-Request-Id'),
        content: { 'application/json': { schema: schemaRef('HealthResponse') } },
      },
      ...PUBLIC_ERRORS,
    },
  }),
  operation('get', '/livez', {
    operationId: 'livez',
    tags: ['operations'],
    summary: 'Liveness probe',
    security: [],
    responses: { '200': probe('The process runs.'), ...PUBLIC_ERRORS },
  }),
  operation('get', '/readyz', {
    operationId: 'readyz',
    tags: ['operations'],
    summary: 'Readiness probe',
    security: [],
    responses: {
      '200': probe(
        'The key replica is loaded, the published capability snapshots have been read once and the score ' +
          'path is warm. A capability with no snapshot published yet does not hold readiness back: it is ' +
          'served missing and GET /v1/health says so.',
      ),
      ...PUBLIC_ERRORS,
      '503': probe('Still loading the key replica or the capability snapshots, or warming up.'),
    },
  }),
] as const;
const [health, livez, readyz] = healthOperations;

/**
 * Routes the API serves that are not part of the public contract, so not in the document: to a
 * caller without the token /metrics does not exist (metricsAccess answers 404).
 */
export const UNDOCUMENTED_ROUTES = [{ method: 'get', path: '/metrics' }] as const;

/**
 * /livez and /readyz for orchestrators; GET /v1/health for operators (public); /metrics for
 * Prometheus (token or loopback only, see metrics-access.ts).
 */
export function healthRoutes(deps: HealthRouteDeps): Router {
  const router = Router();
  router.get(livez.expressPath, (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get(readyz.expressPath, (_req, res) => {
    const ready = deps.ready();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'loading' });
  });
  router.get(health.expressPath, (_req, res) => {
    const capabilities = deps.capabilities();
    const body: HealthResponse = {
      status: Object.values(capabilities).every((c) => c.status === 'ok') ? 'ok' : 'degraded',
      score_versions: scoreVersions(deps.versions?.() ?? AS_RELEASED),
      capabilities,
      topology: deps.topology(),
    };
    res.json(body);
  });
  router.get('/metrics', metricsAccess(deps.metricsToken), async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  // Registered after the GETs: any other method (TRACE, POST, ...) is a 405 with `Allow`, not a 404.
  // Not /metrics: to a caller it does not exist (metricsAccess), whatever the method.
  router.all(
    healthOperations.map((o) => o.expressPath),
    methodNotAllowed(['GET']),
  );
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
    posture_shift: v.postureShift,
    band_rates: BAND_RATES[v.id] ?? {},
  }));
}
