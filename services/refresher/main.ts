/**
 * Composition root of the refresher: BullMQ job schedulers and one worker that runs them: one
 * job per capability (snapshots and the reputation ledger) and the audit retention job.
 */
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { hostname } from 'node:os';
import { CAPABILITIES, withOverrides } from '../../shared/capabilities/registry.ts';
import { feedLocations } from '../../shared/capabilities/sources.ts';
import { SnapshotStore } from '../../shared/capabilities/store.ts';
import { createClickHouse } from '../../shared/clients/clickhouse.ts';
import { createRedis } from '../../shared/clients/redis.ts';
import { loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { startMetricsServer, stopMetricsServer } from '../../shared/metrics-server.ts';
import { handleShutdown } from '../../shared/shutdown.ts';
import { capabilityJob } from './jobs/capability.ts';
import type { RefresherJob } from './jobs/job.ts';
import { registerRefresherMetrics } from './metrics.ts';
import { retentionJob } from './jobs/retention.ts';
import { dispatcher, REFRESHER_QUEUE, registerSchedulers } from './schedule.ts';

let cfg;
try {
  cfg = loadConfig();
} catch (err) {
  console.error(`refresher: ${(err as Error).message}`);
  process.exit(2);
}
const log = createLogger('refresher', cfg.LOG_LEVEL).child({
  node: cfg.NODE_ID ?? `${hostname()}:${process.pid}`,
});

// BullMQ workers block on Redis and require maxRetriesPerRequest: null on their connection.
const connection = new Redis(cfg.REDIS_URL, { maxRetriesPerRequest: null, connectionName: 'frs-refresher' });
const snapshots = createRedis(cfg.REDIS_URL, { connectionName: 'frs-refresher-snapshots' });
const ledger = cfg.LEDGER_REDIS_URL
  ? createRedis(cfg.LEDGER_REDIS_URL, { connectionName: 'frs-refresher-ledger' })
  : snapshots;
const ch = createClickHouse(cfg.CLICKHOUSE_URL);

const capabilities = CAPABILITIES.map((def) =>
  withOverrides(def, cfg.CAPABILITY_REFRESH_S, cfg.CAPABILITY_FRESHNESS_S),
);
const refreshDeps = {
  store: new SnapshotStore(snapshots, cfg.CAPABILITY_KEY_PREFIX, ledger),
  locations: feedLocations(cfg),
  timeoutMs: cfg.FEED_TIMEOUT_MS,
  maxShrink: cfg.FEED_MAX_SHRINK,
  log,
};
const jobs: RefresherJob[] = [
  ...capabilities.map((def) => capabilityJob(def, refreshDeps)),
  retentionJob({ ch, database: cfg.CLICKHOUSE_DATABASE, log }),
];

const queue = new Queue(REFRESHER_QUEUE, { connection, prefix: cfg.BULLMQ_PREFIX });
await registerSchedulers(queue, jobs);
const worker = new Worker(REFRESHER_QUEUE, dispatcher(jobs), {
  connection,
  prefix: cfg.BULLMQ_PREFIX,
  concurrency: 1,
});
worker.on('failed', (job, err) => log.error({ job: job?.name, err: String(err) }, 'refresher job failed'));
worker.on('completed', (job) => log.info({ job: job.name }, 'refresher job done'));
registerRefresherMetrics({ worker, store: refreshDeps.store, defs: capabilities, log });
const metricsServer = await startMetricsServer({
  port: cfg.REFRESHER_METRICS_PORT,
  host: cfg.HOST,
  ready: () =>
    connection.status !== 'ready'
      ? { ready: false, reason: `redis ${connection.status}` }
      : worker.isRunning()
        ? { ready: true }
        : { ready: false, reason: 'worker not running' },
  log,
});
log.info({ jobs: jobs.map((j) => j.name) }, 'refresher running');

handleShutdown(log, async () => {
  await stopMetricsServer(metricsServer);
  await worker.close();
  await queue.close();
  await ch.close();
  await connection.quit();
  snapshots.disconnect();
  ledger.disconnect();
});
