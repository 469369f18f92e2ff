/**
 * Composition root of an API node: builds the clients, hands typed dependencies to the app,
 * and owns ordered shutdown (stop accepting, finish in-flight requests, flush the audit buffer,
 * close clients).
 */
import { hostname } from 'node:os';
import { once } from 'node:events';
import { join } from 'node:path';
import { ScoreHistory } from '../../shared/audit/history.ts';
import { createClickHouse } from '../../shared/clients/clickhouse.ts';
import { createKafka } from '../../shared/clients/kafka.ts';
import { createRedis } from '../../shared/clients/redis.ts';
import { loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { loadResolutionData } from '../../shared/resolution/resolution-data.ts';
import { buildApp } from './app.ts';
import { AuditJournal } from './audit-journal.ts';
import { AuditPublisher } from './audit-publisher.ts';
import { Authenticator } from './auth.ts';
import { Controls, NO_CONTROLS } from './controls/controls.ts';
import { ExplainCache } from './explain-cache.ts';
import { Scorer } from './scorer.ts';

let cfg;
try {
  cfg = loadConfig();
} catch (err) {
  console.error(`api: ${(err as Error).message}`);
  process.exit(2);
}
let stopping = false;
const nodeId = cfg.NODE_ID ?? `${hostname()}:${process.pid}`;
const log = createLogger('api', cfg.LOG_LEVEL).child({ node: nodeId });

// Loaded before the server listens, so /readyz never answers ready without it.
const resolution = loadResolutionData();
log.info(
  { load_ms: resolution.loadMs, origin: resolution.origin, sources: resolution.sources },
  'resolution data loaded',
);
if (resolution.cacheError) log.warn({ reason: resolution.cacheError }, 'resolution cache unavailable');

// The hot path (key reads, the controls script) fails fast and degrades; background work (the
// key replica, pub/sub) may wait and retry.
const redis = createRedis(cfg.REDIS_URL, { connectionName: `frs-api-${nodeId}`, failFast: true });
const redisBg = createRedis(cfg.REDIS_URL, { connectionName: `frs-api-bg-${nodeId}` });
const redisSub = createRedis(cfg.REDIS_URL, { connectionName: `frs-api-sub-${nodeId}` });
const ch = createClickHouse(cfg.CLICKHOUSE_URL);
const kafka = createKafka(cfg.KAFKA_BROKERS, `frs-api-${nodeId}`);
// One journal directory per node, stable across restarts (NODE_ID, else the port), so a restarted
// node replays what it spilled before.
const journalDir = join(cfg.AUDIT_JOURNAL_DIR, (cfg.NODE_ID ?? `port-${cfg.PORT}`).replace(/[^\w.-]/g, '_'));
const audit = new AuditPublisher(
  kafka,
  new AuditJournal({ dir: journalDir, segmentBytes: 64 << 20, maxBytes: 2 * 1024 ** 3 }),
  log,
);
await audit.start();
const explainCache = new ExplainCache(redis, log);

const auth = new Authenticator({ store: new OrgStore(redis), replicaStore: new OrgStore(redisBg) }, log);
// Until the key replica is loaded the node is not ready: it could not tell keys apart if Redis
// went down. Retried in the background so a node started during an outage becomes ready later.
void (async () => {
  while (!stopping) {
    try {
      await auth.follow(redisSub);
      return await auth.load();
    } catch (err) {
      log.warn({ err: String(err) }, 'api key replica not loaded yet; retrying');
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
})();

const app = buildApp({
  log,
  auth,
  controls:
    cfg.CONTROLS === 'on' ? new Controls({ redis, log, nodeCount: cfg.CONTROLS_NODE_COUNT }) : NO_CONTROLS,
  scorer: new Scorer({
    nodeId,
    publish: (scoreId, recordJson) => {
      audit.publish(scoreId, recordJson);
      explainCache.put(scoreId, recordJson);
    },
    resolution: () => resolution,
  }),
  history: new ScoreHistory(ch, cfg.CLICKHOUSE_DATABASE),
  recent: explainCache,
  ready: () => auth.ready,
});

const server = app.listen(cfg.PORT, cfg.HOST);
server.keepAliveTimeout = 65_000;
await once(server, 'listening');
log.info({ port: cfg.PORT }, 'api listening');

async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  let failed = false;
  try {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await audit.close();
    await ch.close();
    redis.disconnect();
    redisBg.disconnect();
    redisSub.disconnect();
  } catch (err) {
    failed = true;
    log.error({ err }, 'shutdown error');
  }
  process.exit(failed ? 1 : 0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('uncaughtException', (err) => {
  log.fatal({ err }, 'uncaught exception');
  void shutdown('uncaughtException').finally(() => process.exit(1));
});
