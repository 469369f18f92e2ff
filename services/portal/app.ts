import { join } from 'node:path';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { ExplainSources } from '../../shared/audit/explain.ts';
import type { Logger } from '../../shared/logger.ts';
import type { OrgStore } from '../../shared/orgs/store.ts';
import type { UserStore } from '../../shared/portal/users.ts';
import type { ActivityStore } from './activity.ts';
import type { TrustProxy } from '../../shared/portal/config.ts';
import { authRoutes, signoutRoute } from './routes/auth.ts';
import { activityRoutes, type ActivityRouteDeps } from './routes/activity.ts';
import { requireCsrf, requireSession } from './routes/guard.ts';
import { keysRoutes } from './routes/keys.ts';
import { LISTS_UPLOAD_PATH, listsRoutes, listsUploadForm, type ListsRouteDeps } from './routes/lists.ts';
import { teamRoutes } from './routes/team.ts';
import type { FlashStore } from './flash.ts';
import type { KeyExpiry } from './key-expiry.ts';
import type { SessionStore } from './sessions.ts';
import type { SigninLimit } from './signin-limit.ts';
import type { PortalMetrics } from './metrics.ts';
import { metricsAccess } from '../../shared/metrics-access.ts';
import { messagePage } from './views/layout.ts';
import { verifyFormEncoding } from './form-encoding.ts';

export interface PortalAppDeps {
  log: Logger;
  users: UserStore;
  sessions: SessionStore;
  flash: FlashStore;
  limit: SigninLimit;
  orgs: OrgStore;
  activity: ActivityStore;
  /** The organisation's allow/deny lists (the Lists page). */
  listStore: ListsRouteDeps['listStore'];
  explain: ExplainSources;
  reveal: ActivityRouteDeps['reveal'];
  ready: () => boolean;
  /** Express `trust proxy` (PORTAL_TRUST_PROXY; false = none). */
  trustProxy: TrustProxy;
  /** The API's public address, for the `curl` examples. */
  apiUrl: string;
  /** Where setup links point (PORTAL_URL). */
  portalUrl: string;
  /** Revokes rolled keys at the end of their overlap. */
  expiry: KeyExpiry;
  metrics: PortalMetrics;
  /** METRICS_TOKEN: who may read /metrics (unset: loopback clients only). */
  metricsToken: string | undefined;
}

/** No inline script or style, nothing from elsewhere, no framing, forms post only here. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.set({
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    // Setup links carry their token in the URL: never send it on as a Referer.
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    'Cross-Origin-Opener-Policy': 'same-origin',
  });
  next();
}

/** The portal's HTTP surface; every dependency comes in through `deps`, built by portal.ts. */
export function buildPortalApp(deps: PortalAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', deps.trustProxy);
  app.use(securityHeaders);
  app.get('/livez', (_req, res) => res.json({ status: 'ok' }));
  app.get('/readyz', (_req, res) => res.status(deps.ready() ? 200 : 503).json({ ready: deps.ready() }));
  app.get('/metrics', metricsAccess(deps.metricsToken), async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  app.use('/static', express.static(join(import.meta.dirname, 'static'), { index: false, maxAge: 0 }));
  // A value whose percent-encoding does not decode is refused (400), never kept as its literal.
  app.use(
    express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 20, verify: verifyFormEncoding }),
  );
  app.use(authRoutes(deps));
  // Everything below needs a session; every POST below also needs the session's CSRF token.
  app.use(requireSession(deps.sessions, deps.orgs));
  // The one multipart form (a CSV of up to 10 MiB): read here, so the CSRF check sees its token.
  app.post(LISTS_UPLOAD_PATH, listsUploadForm);
  app.post(/.*/, requireCsrf);
  app.use(signoutRoute(deps.sessions));
  app.use(keysRoutes(deps));
  app.use(activityRoutes(deps));
  app.use(teamRoutes(deps));
  app.use(listsRoutes(deps));
  app.use((_req: Request, res: Response) => {
    res
      .status(404)
      .type('html')
      .send(messagePage('Not found', 'There is no such page.', res.locals.session).value);
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: number }).status ?? 500;
    if (status >= 500) deps.log.error({ err }, 'portal request failed');
    res
      .status(status >= 400 && status < 600 ? status : 500)
      .type('html')
      .send(
        messagePage(
          'Something went wrong',
          status >= 500 ? 'Please retry shortly.' : 'The request was not valid.',
        ).value,
      );
  });
  return app;
}
