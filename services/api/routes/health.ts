import { Router } from 'express';
import { SCORE_VERSIONS } from '../../../shared/scoring/versions.ts';

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
    res.json({
      status: 'ok',
      score_versions: SCORE_VERSIONS.map((v) => ({ id: v.id, status: v.status })),
      capabilities: {},
    });
  });
  return router;
}
