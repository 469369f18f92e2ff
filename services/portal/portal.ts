/**
 * The portal built from config: clients, stores and the HTTP app,
 * each registered in one `Resources` so stop closes everything once, in order, within
 * PORTAL_STOP_DEADLINE_MS. `main.ts` only wires signals to `start` and `stop`.
 */
import { once } from 'node:events';
import { ScoreHistory } from '../../shared/audit/history.ts';
import { clusterReplicas, createClickHouse } from '../../shared/clients/clickhouse.ts';
import { createRedis, durableRedis } from '../../shared/clients/redis.ts';
import { createTimedServer } from '../../shared/http-server.ts';
import { Resources, type Service } from '../../shared/lifecycle.ts';
import type { Logger } from '../../shared/logger.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { OrgListStore } from '../../shared/orgs/lists-store.ts';
import { UserStore } from '../../shared/portal/users.ts';
import { ExplainCache } from '../../shared/audit/explain-cache.ts';
import { HistoryLookups } from '../../shared/audit/history-lookups.ts';
import { logClientErrors } from '../../shared/http-client-errors.ts';
import { ActivityStore } from './activity.ts';
import { buildPortalApp, type PortalAppDeps } from './app.ts';
import type { PortalConfig } from '../../shared/portal/config.ts';
import { FlashStore } from './flash.ts';
import { KeyExpiry } from './key-expiry.ts';
import { SessionStore } from './sessions.ts';
import { SigninLimit } from './signin-limit.ts';
import { SubjectReveal } from './subject-reveal.ts';
import { createPortalMetrics, type PortalMetrics } from './metrics.ts';
import type { RedisClient } from '../../shared/clients/redis.ts';
import type { Express } from 'express';

/** Pages answer quickly; nothing is buffered. */
export const PORTAL_STOP_DEADLINE_MS = 10_000;

export function createPortal(cfg: PortalConfig, log: Logger): Service {
  const resources = new Resources();

  return {
    async start() {
      const redis = resources.add(
        'clients',
        'redis',
        createRedis(durableRedis(cfg), { connectionName: 'frs-portal' }),
        (r) => r.disconnect(),
      );
      const app = buildPortalApp(portalAppDeps(cfg, log, resources, redis));
      await listen(cfg, app, resources, log);
    },
    stop() {
      return resources.closeAll(log, Date.now() + PORTAL_STOP_DEADLINE_MS);
    },
  };
}

/** The pages' stores and readers, over the portal's clients (registered in `resources`). */
function portalAppDeps(
  cfg: PortalConfig,
  log: Logger,
  resources: Resources,
  redis: RedisClient,
): PortalAppDeps {
  // The explain copies, read exactly as the API reads them.
  const redisExplain = resources.add(
    'clients',
    'redis explain',
    createRedis(cfg.EXPLAIN_REDIS_URL, { connectionName: 'frs-portal-explain', failFast: true }),
    (r) => r.disconnect(),
  );
  const ch = resources.add('clients', 'clickhouse', createClickHouse(cfg.CLICKHOUSE_URL), (c) => c.close());
  const orgs = new OrgStore(redis);
  const expiry = resources.add('workers', 'rolled key expiry', new KeyExpiry(orgs, log), (e) => e.stop());
  const lookups = new HistoryLookups(
    cfg.EXPLAIN_LOOKUPS_MAX,
    Math.max(1, Math.ceil(cfg.EXPLAIN_LOOKUPS_MAX / 2)),
  );
  const explainCopies = new ExplainCache(redisExplain, log);
  const metrics = createPortalMetrics();
  const activity = new ActivityStore(redis, cfg.CAPABILITY_KEY_PREFIX);
  return {
    log,
    users: new UserStore(redis),
    sessions: new SessionStore(redis, cfg.PORTAL_SESSION_IDLE_S),
    flash: new FlashStore(redis),
    limit: signinLimit(cfg, redis, metrics, log),
    orgs,
    activity,
    listStore: new OrgListStore(redis),
    explain: {
      recent: explainCopies,
      history: new ScoreHistory(ch, cfg.CLICKHOUSE_DATABASE, clusterReplicas(cfg, resources)),
      // The API's bound on ClickHouse lookups, per portal process: ClickHouse serves the sink too.
      acquire: (org) => lookups.acquire(org),
    },
    reveal: new SubjectReveal({ recent: explainCopies, ch, database: cfg.CLICKHOUSE_DATABASE, log }),
    ready: () => redis.status === 'ready',
    trustProxy: cfg.PORTAL_TRUST_PROXY,
    apiUrl: cfg.PORTAL_API_URL,
    portalUrl: cfg.PORTAL_URL,
    expiry,
    metrics,
    metricsToken: cfg.METRICS_TOKEN,
  };
}

function signinLimit(
  cfg: PortalConfig,
  redis: RedisClient,
  metrics: PortalMetrics,
  log: Logger,
): SigninLimit {
  return new SigninLimit(redis, {
    maxPerEmail: cfg.PORTAL_SIGNIN_MAX_PER_EMAIL,
    maxPerIp: cfg.PORTAL_SIGNIN_MAX_PER_IP,
    maxPerIpEmail: cfg.PORTAL_SIGNIN_MAX_PER_IP_EMAIL,
    windowS: cfg.PORTAL_SIGNIN_WINDOW_S,
    onAccountTripped: (account) => {
      metrics.signinAccountTripped.inc();
      // The account by a digest prefix: enough to match repeated trips, never the email.
      log.warn(
        { account, windowS: cfg.PORTAL_SIGNIN_WINDOW_S },
        'sign-in limit of an account tripped: likely password guessing from many addresses',
      );
    },
  });
}

async function listen(cfg: PortalConfig, app: Express, resources: Resources, log: Logger): Promise<void> {
  // The API's timeouts: a client trickling its headers or body, or idling on a keep-alive
  // connection, is cut instead of holding the connection for Node's defaults.
  const listening = createTimedServer(cfg, app).listen(cfg.PORTAL_PORT, cfg.PORTAL_HOST);
  logClientErrors(listening, log);
  const server = resources.add('intake', 'http server', listening, (s) => {
    const closed = once(s, 'close');
    s.close();
    s.closeAllConnections();
    return closed;
  });
  await once(server, 'listening');
  log.info({ port: cfg.PORTAL_PORT }, 'portal listening');
}
