/**
 * Composition root of the portal: builds the clients, the stores, the score-stream consumer and
 * the HTTP app, and owns ordered start and stop. `main.ts` only calls this.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { ScoreHistory } from '../../shared/audit/history.ts';
import { createClickHouse } from '../../shared/clients/clickhouse.ts';
import { createKafka } from '../../shared/clients/kafka.ts';
import { createRedis } from '../../shared/clients/redis.ts';
import { createLogger, type Logger } from '../../shared/logger.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { UserStore } from '../../shared/portal/users.ts';
import { ExplainCache } from '../api/explain-cache.ts';
import { ActivityFeed, ActivityStore } from './activity.ts';
import { buildPortalApp } from './app.ts';
import type { PortalConfig } from './config.ts';
import { SessionStore } from './sessions.ts';
import { SigninLimit } from './signin-limit.ts';

export interface Portal {
  /** Listens and starts following the score stream; resolves with the bound port. */
  start(): Promise<number>;
  stop(): Promise<void>;
}

export function createPortal(cfg: PortalConfig, log: Logger = createLogger('portal', cfg.LOG_LEVEL)): Portal {
  const redis = createRedis(cfg.REDIS_URL, { connectionName: 'frs-portal' });
  // The explain copies, read exactly as the API reads them.
  const redisExplain = createRedis(cfg.EXPLAIN_REDIS_URL, {
    connectionName: 'frs-portal-explain',
    failFast: true,
  });
  const ch = createClickHouse(cfg.CLICKHOUSE_URL);
  const kafka = createKafka(cfg.KAFKA_BROKERS, 'frs-portal');
  const feed = new ActivityFeed({ kafka, groupId: cfg.PORTAL_GROUP, redis, log });
  const orgs = new OrgStore(redis);
  const app = buildPortalApp({
    log,
    users: new UserStore(redis),
    sessions: new SessionStore(redis, cfg.PORTAL_SESSION_IDLE_S),
    limit: new SigninLimit(redis, {
      maxPerEmail: cfg.PORTAL_SIGNIN_MAX_PER_EMAIL,
      maxPerIp: cfg.PORTAL_SIGNIN_MAX_PER_IP,
      windowS: cfg.PORTAL_SIGNIN_WINDOW_S,
    }),
    orgs,
    activity: new ActivityStore(redis),
    explain: {
      recent: new ExplainCache(redisExplain, log),
      history: new ScoreHistory(ch, cfg.CLICKHOUSE_DATABASE),
    },
    live: () => feed.ready,
    ready: () => feed.ready && redis.status === 'ready',
    trustProxy: cfg.PORTAL_TRUST_PROXY,
  });
  let server: Server | undefined;
  let stopping = false;

  /** Kafka may be down at boot: the pages work meanwhile and the feed joins once it is back. */
  async function follow(): Promise<void> {
    while (!stopping) {
      try {
        return await feed.start();
      } catch (err) {
        log.warn({ err: String(err) }, 'activity feed not connected yet; retrying');
        await new Promise((r) => setTimeout(r, 2_000));
      }
    }
  }

  return {
    async start() {
      server = app.listen(cfg.PORTAL_PORT, cfg.PORTAL_HOST);
      await once(server, 'listening');
      void follow();
      const port = (server.address() as AddressInfo).port;
      log.info({ port }, 'portal listening');
      return port;
    },
    async stop() {
      stopping = true;
      if (server) {
        const closed = once(server, 'close');
        server.close();
        server.closeAllConnections();
        await closed;
      }
      await feed.stop().catch(() => undefined);
      await ch.close();
      redis.disconnect();
      redisExplain.disconnect();
    },
  };
}
