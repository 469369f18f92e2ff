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
import { createKafka, kafkaSecurity } from '../../shared/clients/kafka.ts';
import { createRedis } from '../../shared/clients/redis.ts';
import { loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { handleShutdown } from '../../shared/shutdown.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { refreshCapability } from '../../shared/capabilities/refresh.ts';
import { CAPABILITIES, withOverrides } from '../../shared/capabilities/registry.ts';
import { feedLocations } from '../../shared/capabilities/sources.ts';
import { SnapshotStore } from '../../shared/capabilities/store.ts';
import { buildApp } from './app.ts';
import { AuditJournal } from './audit-journal.ts';
import { AuditPublisher } from './audit-publisher.ts';
import { Authenticator } from './auth.ts';
import { capabilityHealth } from './capabilities/health.ts';
import { LedgerLookup } from './capabilities/ledger-lookup.ts';
import { SnapshotCache } from './capabilities/snapshot-cache.ts';
import { Controls, NO_CONTROLS } from './controls/controls.ts';
import { ExplainCache } from './explain-cache.ts';
import { drainHttpServer } from './http/drain.ts';
import { ApiMetrics } from './metrics.ts';
import { Scorer } from './scorer.ts';

let cfg;
try {
  cfg = loadConfig();
} catch (err) {
  console.error(`api: ${(err as Error).message}`);
  process.exit(2);
}
const nodeId = cfg.NODE_ID ?? `${hostname()}:${process.pid}`;
const log = createLogger('api', cfg.LOG_LEVEL).child({ node: nodeId });

// The hot path (key reads, the controls script) fails fast and degrades; background work (the
// key replica, pub/sub) may wait and retry.
const redis = createRedis(cfg.REDIS_URL, { connectionName: `frs-api-${nodeId}`, failFast: true });
const redisBg = createRedis(cfg.REDIS_URL, { connectionName: `frs-api-bg-${nodeId}` });
const redisSub = createRedis(cfg.REDIS_URL, { connectionName: `frs-api-sub-${nodeId}` });
// Snapshots load on connections of their own: a 20 MB read must not queue behind or ahead of the
// hot path's commands, and a subscribed connection can do nothing else.
const redisSnapshots = createRedis(cfg.REDIS_URL, { connectionName: `frs-api-snap-${nodeId}` });
const redisSnapshotSub = createRedis(cfg.REDIS_URL, { connectionName: `frs-api-snapsub-${nodeId}` });
// Explain copies go to a cache server of their own: disposable, memory-bounded, never persisted.
const redisExplain = createRedis(cfg.EXPLAIN_REDIS_URL, {
  connectionName: `frs-api-explain-${nodeId}`,
  failFast: true,
});
// The live ledger: fail fast, so an outage costs a request at most the breaker's timeout.
const redisLedger = createRedis(cfg.LEDGER_REDIS_URL ?? cfg.REDIS_URL, {
  connectionName: `frs-api-ledger-${nodeId}`,
  failFast: true,
});
const ch = createClickHouse(cfg.CLICKHOUSE_URL);
const kafka = createKafka(cfg.KAFKA_BROKERS, `frs-api-${nodeId}`, kafkaSecurity(cfg));
// One journal directory per node, stable across restarts (NODE_ID, else the port), so a restarted
// node replays what it spilled before.
const journalDir = join(cfg.AUDIT_JOURNAL_DIR, (cfg.NODE_ID ?? `port-${cfg.PORT}`).replace(/[^\w.-]/g, '_'));
const audit = new AuditPublisher(
  kafka,
  new AuditJournal({ dir: journalDir, segmentBytes: 64 << 20, maxBytes: 2 * 1024 ** 3 }),
  log,
);
await audit.start();
const explainCache = new ExplainCache(redisExplain, log);

const capabilities = CAPABILITIES.map((def) =>
  withOverrides(def, cfg.CAPABILITY_REFRESH_S, cfg.CAPABILITY_FRESHNESS_S),
);
const store = new SnapshotStore(redisSnapshots, cfg.CAPABILITY_KEY_PREFIX, redisLedger);
const snapshots = new SnapshotCache({
  store,
  subscriber: redisSnapshotSub,
  defs: capabilities,
  pollMs: cfg.CAPABILITY_POLL_S * 1000,
  log,
  bootstrap: (def) =>
    refreshCapability(def, {
      store,
      locations: feedLocations(cfg),
      timeoutMs: cfg.FEED_TIMEOUT_MS,
      maxShrink: cfg.FEED_MAX_SHRINK,
      log,
    }),
});
// Not awaited: the node listens (and answers /livez) while loading; /readyz waits for it.
void snapshots.start();
const ledger = new LedgerLookup({
  redis: redisLedger,
  key: (version) => store.ledgerKey(version),
  version: () => snapshots.current.ledgerVersion,
  timeoutMs: cfg.LEDGER_TIMEOUT_MS,
  resetMs: cfg.LEDGER_BREAKER_RESET_MS,
});
const health = () => capabilityHealth(capabilities, snapshots, ledger);
const metrics = new ApiMetrics({
  capabilities: health,
  auditDepth: () => audit.depth,
  audit: () => audit.counters(),
  explainCopiesSkipped: () => explainCache.failed,
});

/**
 * How long requests already received may take to be answered once SIGTERM arrives; the audit
 * buffer's flush (5 s at most) follows, well inside an orchestrator's usual 30 s grace.
 */
const SHUTDOWN_GRACE_MS = 10_000;

// Registered before the server exists so a signal during start-up still closes the clients.
const shutdown = handleShutdown(log, async () => {
  await drainHttpServer(server, SHUTDOWN_GRACE_MS);
  await audit.close();
  await ch.close();
  snapshots.stop();
  ledger.shutdown();
  for (const r of [redis, redisBg, redisSub, redisSnapshots, redisSnapshotSub, redisLedger, redisExplain])
    r.disconnect();
});

const auth = new Authenticator({ store: new OrgStore(redis), replicaStore: new OrgStore(redisBg) }, log);
// Until the key replica is loaded the node is not ready: it could not tell keys apart if Redis
// went down. Retried in the background so a node started during an outage becomes ready later.
void (async () => {
  while (!shutdown.stopping) {
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
    snapshots,
    capabilities,
    ledger,
  }),
  history: new ScoreHistory(ch, cfg.CLICKHOUSE_DATABASE),
  recent: explainCache,
  ready: () => auth.ready && snapshots.ready,
  capabilities: health,
  metrics,
});

const server = app.listen(cfg.PORT, cfg.HOST);
server.keepAliveTimeout = 65_000;
await once(server, 'listening');
log.info({ port: cfg.PORT }, 'api listening');
