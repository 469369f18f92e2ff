import { Router } from 'express';
import { json } from '../../../shared/contract/operation.ts';
import {
  HealthResponse,
  ProbeResponse,
  type DeploymentTopology,
  type PhoneLookupHealth,
} from '../../../shared/contract/response.ts';
import { readBandRates } from '../../../shared/scoring/version-files.ts';
import { AS_RELEASED, type VersionState } from '../../../shared/scoring/version-state.ts';
import { SCORE_VERSIONS } from '../../../shared/scoring/versions.ts';
import type { CapabilityHealth } from '../capabilities/health.ts';
import { metricsAccess } from '../../../shared/metrics-access.ts';
import { defineRoute } from '../http/route.ts';
import type { ApiMetrics } from '../metrics.ts';

export interface HealthRouteDeps {
  /** The key replica and the first load of every capability are done. */
  ready: () => boolean;
  capabilities: () => Record<string, CapabilityHealth>;
  /** The live phone lookup's provider and breaker (capabilities/health.ts); none configured without it. */
  phoneLookup?: () => PhoneLookupHealth;
  /** Node counts per engine (topology.ts). */
  topology: () => DeploymentTopology;
  versions?: () => VersionState;
}

export interface MetricsRouteDeps {
  metrics: ApiMetrics;
  /** Bearer token for /metrics; without one only loopback clients may read it. */
  metricsToken?: string;
}

const BAND_RATES = readBandRates();

/**
 * The answers every public operation can give besides its own: no such route, and the
 * per-address budget of refused requests, which applies to every route.
 */
const PUBLIC_ERRORS = ['NotFound', 'RateLimited'] as const;

const probe = (description: string) => ({ description, body: json(ProbeResponse) });

/** GET /v1/health: capabilities, score versions and topology, for operators (public). */
export const healthRoute = defineRoute({
  method: 'get',
  path: '/v1/health',
  operationId: 'health',
  tags: ['operations'],
  summary: 'Capabilities and score versions',
  auth: 'public',
  responses: {
    200: {
      description:
        'Capability status keyed by component key, the score versions, the live phone lookup (its provider ' +
        'and breaker), and how many nodes of each engine the API runs on (counts only, no addresses).',
      body: json(HealthResponse),
    },
  },
  errors: PUBLIC_ERRORS,
  handler: (deps: HealthRouteDeps) => (_input, res) => {
    const capabilities = deps.capabilities();
    const phoneLookup = deps.phoneLookup?.() ?? { configured: false };
    const ok =
      Object.values(capabilities).every((c) => c.status === 'ok') &&
      (!phoneLookup.configured || phoneLookup.breaker === 'closed');
    const body: HealthResponse = {
      status: ok ? 'ok' : 'degraded',
      score_versions: scoreVersions(deps.versions?.() ?? AS_RELEASED),
      capabilities,
      phone_lookup: phoneLookup,
      topology: deps.topology(),
    };
    res.json(body);
  },
});

/** GET /livez, for orchestrators. */
export const livezRoute = defineRoute({
  method: 'get',
  path: '/livez',
  operationId: 'livez',
  tags: ['operations'],
  summary: 'Liveness probe',
  auth: 'public',
  responses: { 200: probe('The process runs.') },
  errors: PUBLIC_ERRORS,
  handler: () => (_input, res) => {
    res.json({ status: 'ok' });
  },
});

/** GET /readyz, for orchestrators. */
export const readyzRoute = defineRoute({
  method: 'get',
  path: '/readyz',
  operationId: 'readyz',
  tags: ['operations'],
  summary: 'Readiness probe',
  auth: 'public',
  responses: {
    200: probe(
      'The key replica is loaded, the published capability snapshots have been read once and the score ' +
        'path is warm. A capability with no snapshot published yet does not hold readiness back: it is ' +
        'served missing and GET /v1/health says so.',
    ),
    503: probe('Still loading the key replica or the capability snapshots, or warming up.'),
  },
  errors: PUBLIC_ERRORS,
  handler: (deps: Pick<HealthRouteDeps, 'ready'>) => (_input, res) => {
    const ready = deps.ready();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'loading' });
  },
});

/**
 * Routes the API serves that are not part of the public contract, so not in the document: to a
 * caller without the token /metrics does not exist (metricsAccess answers 404).
 */
export const UNDOCUMENTED_ROUTES = [{ method: 'get', path: '/metrics' }] as const;

/**
 * /metrics for Prometheus (token or loopback only, see metrics-access.ts). Any other method is a
 * 404 as for any unknown route: to a caller it does not exist.
 */
export function metricsRoutes(deps: MetricsRouteDeps): Router {
  const router = Router();
  router.get('/metrics', metricsAccess(deps.metricsToken), async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
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
