import { Router } from 'express';
import type { HealthResponse } from '../../../shared/contract/response.ts';
import { COMPONENT_KEYS } from '../../../shared/scoring/reason-codes.ts';
import { DEFAULT_VERSION, SCORE_VERSIONS } from '../../../shared/scoring/versions.ts';

export interface HealthRouteDeps {
  ready: () => boolean;
}

/** /livez and /readyz for orchestrators; GET /v1/health for operators (public). */
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
    // Every capability answers from in-memory data today; live sources will report their breakers here.
    const body: HealthResponse = {
      status: 'ok',
      score_versions: SCORE_VERSIONS.map((v) => ({
        id: v.id,
        status: v.status,
        default: v === DEFAULT_VERSION,
      })),
      capabilities: Object.fromEntries(
        Object.keys(COMPONENT_KEYS).map((k) => [k, { status: 'ok' as const }]),
      ),
    };
    res.json(body);
  });
  return router;
}
