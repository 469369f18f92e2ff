import express, { type Express } from 'express';
import type { Logger } from '../../shared/logger.ts';
import { errorHandler, notFound } from './http/errors.ts';
import { requestId } from './http/request-id.ts';
import { mountRoutes, type RoutesDeps } from './http/route.ts';
import { openApiYaml } from './openapi/document.ts';
import { API_ROUTES } from './routes/api-routes.ts';
import { metricsRoutes, type MetricsRouteDeps } from './routes/health.ts';
import type { OpenApiRouteDeps } from './routes/openapi.ts';

/** What the routes need (the document they serve comes from here), /metrics, and the logger. */
export type AppDeps = Omit<RoutesDeps<typeof API_ROUTES>, keyof OpenApiRouteDeps> &
  MetricsRouteDeps & { log: Logger };

/** The HTTP surface; every dependency comes in through `deps`, built by main.ts. */
export function buildApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId);
  app.use(deps.metrics.middleware);
  app.use(deps.budget.track);
  app.use(mountRoutes(API_ROUTES, { ...deps, openApiDocument: openApiYaml }));
  app.use(metricsRoutes(deps));
  app.use(notFound);
  app.use(errorHandler(deps.log));
  return app;
}
