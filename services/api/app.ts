import express, { type Express } from 'express';
import type { Logger } from '../../shared/logger.ts';
import { errorHandler, notFound } from './http/errors.ts';
import { requestId } from './http/request-id.ts';
import { openApiYaml } from './openapi/document.ts';
import { explainRoutes, type ExplainRouteDeps } from './routes/explain.ts';
import { healthRoutes, type HealthRouteDeps } from './routes/health.ts';
import { openApiRoutes } from './routes/openapi.ts';
import { outcomeRoutes, type OutcomeRouteDeps } from './routes/outcomes.ts';
import { scoreRoutes, type ScoreRouteDeps } from './routes/score.ts';

export type AppDeps = ScoreRouteDeps &
  ExplainRouteDeps &
  OutcomeRouteDeps &
  HealthRouteDeps & { log: Logger };

/** The HTTP surface; every dependency comes in through `deps`, built by main.ts. */
export function buildApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId);
  app.use(deps.metrics.middleware);
  app.use(deps.budget.track);
  // The score route first: every other layer is matched against each scoring request otherwise.
  app.use(scoreRoutes(deps));
  app.use(healthRoutes(deps));
  app.use(explainRoutes(deps));
  app.use(outcomeRoutes(deps));
  app.use(openApiRoutes(openApiYaml));
  app.use(notFound);
  app.use(errorHandler(deps.log));
  return app;
}
