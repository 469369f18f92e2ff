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
import { buildApp } from './app.ts';
import { AuditJournal } from './audit-journal.ts';
import { AuditPublisher } from './audit-publisher.ts';
import { Authenticator } from './auth.ts';
import { ExplainCache } from './explain-cache.ts';
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

const redis = createRedis(cfg.REDIS_URL, { connectionName: `frs-api-${nodeId}` });
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

const app = buildApp({
  log,
  auth: new Authenticator(new OrgStore(redis)),
  scorer: new Scorer({
    nodeId,
    publish: (r) => {
      audit.publish(r);
      explainCache.put(r);
    },
  }),
  history: new ScoreHistory(ch, cfg.CLICKHOUSE_DATABASE),
  recent: explainCache,
  ready: () => true,
});

const server = app.listen(cfg.PORT, cfg.HOST);
server.keepAliveTimeout = 65_000;
await once(server, 'listening');
log.info({ port: cfg.PORT }, 'api listening');

let stopping = false;
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
