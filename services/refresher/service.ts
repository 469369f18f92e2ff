/**
 * The refresher built from config: BullMQ job schedulers and one worker that runs them (one job
 * per capability, snapshots and the reputation ledger, and the audit retention job), each job on
 * the schedule of its capability's most frequent source.
 */
import { Queue, Worker } from 'bullmq';
import { hostname } from 'node:os';
import { capabilityModels } from '../../shared/capabilities/model.ts';
import { configuredCapabilities } from '../../shared/capabilities/registry.ts';
import { feedLocations } from '../../shared/capabilities/sources.ts';
import { SnapshotStore } from '../../shared/capabilities/store.ts';
import { SubjectKeys } from '../../shared/capabilities/subject-key.ts';
import { createClickHouse } from '../../shared/clients/clickhouse.ts';
import { createRedis, durableRedis, type RedisClient } from '../../shared/clients/redis.ts';
import type { Config } from '../../shared/config.ts';
import { Resources, type Service } from '../../shared/lifecycle.ts';
import type { Logger } from '../../shared/logger.ts';
import { startMetricsServer, stopMetricsServer } from '../../shared/metrics-server.ts';
import { capabilityJob } from './jobs/capability.ts';
import type { RefresherJob } from './jobs/job.ts';
import { retentionJob } from './jobs/retention.ts';
import { registerRefresherMetrics } from './metrics.ts';
import { dispatcher, REFRESHER_QUEUE, registerSchedulers } from './schedule.ts';

/** Stop: let the running job finish if it can (`worker.close()` waits for it), then close. */
export const REFRESHER_STOP_DEADLINE_MS = 10_000;

export function createRefresher(cfg: Config, baseLog: Logger): Service {
  const log = baseLog.child({ node: cfg.NODE_ID ?? `${hostname()}:${process.pid}` });
  const resources = new Resources();
  const redis = (name: string, url: string, blocking = false) =>
    resources.add(
      'clients',
      name,
      createRedis(durableRedis(cfg, url), { connectionName: `frs-refresher-${name}`, blocking, log }),
      (r) => r.disconnect(),
    );

  const bullmqErrors = mutedErrors(log);

  return {
    async start() {
      // BullMQ's worker blocks on its connection (maxRetriesPerRequest: null).
      const connection = redis('queue', cfg.REDIS_URL, true);
      const snapshots = redis('snapshots', cfg.REDIS_URL);
      const ledger = cfg.LEDGER_REDIS_URL ? redis('ledger', cfg.LEDGER_REDIS_URL) : snapshots;
      const ch = resources.add('clients', 'clickhouse', createClickHouse(cfg.CLICKHOUSE_URL), (c) =>
        c.close(),
      );

      const refreshDeps = {
        store: new SnapshotStore(snapshots, cfg.CAPABILITY_KEY_PREFIX, ledger, SubjectKeys.fromConfig(cfg)),
        locations: feedLocations(cfg),
        timeoutMs: cfg.FEED_TIMEOUT_MS,
        maxShrink: cfg.FEED_MAX_SHRINK,
        log,
        counted: ledger,
      };
      const capabilities = configuredCapabilities(cfg);
      const jobs: RefresherJob[] = [
        ...capabilityModels(capabilities).map((cap) => capabilityJob(cap, refreshDeps)),
        retentionJob({ ch, database: cfg.CLICKHOUSE_DATABASE, cluster: cfg.CLICKHOUSE_CLUSTER, log }),
      ];

      const queue = resources.add(
        'workers',
        'queue',
        new Queue(REFRESHER_QUEUE, { connection, prefix: cfg.BULLMQ_PREFIX }),
        (q) => q.close(),
      );
      queue.on('error', bullmqErrors);
      await registerSchedulers(queue, jobs);
      const worker = resources.add(
        'workers',
        'worker',
        new Worker(REFRESHER_QUEUE, dispatcher(jobs), {
          connection,
          prefix: cfg.BULLMQ_PREFIX,
          // One run per job at a time, the jobs side by side (schedule.ts).
          concurrency: jobs.length,
        }),
        (w) => w.close(),
      );
      worker.on('error', bullmqErrors);
      worker.on('failed', (job, err) => log.error({ job: job?.name, err }, 'refresher job failed'));
      worker.on('completed', (job) => log.info({ job: job.name }, 'refresher job done'));
      registerRefresherMetrics({ worker, store: refreshDeps.store, defs: capabilities, log });
      resources.add(
        'intake',
        'metrics server',
        await startMetricsServer({
          port: cfg.REFRESHER_METRICS_PORT,
          host: cfg.HOST,
          ready: () => readiness(connection, worker),
          log,
        }),
        stopMetricsServer,
      );
      log.info({ jobs: jobs.map((j) => j.name) }, 'refresher running');
    },
    stop: () => resources.closeAll(log, Date.now() + REFRESHER_STOP_DEADLINE_MS),
  };
}

/**
 * BullMQ duplicates its connections and re-emits their errors on the queue and the worker, once
 * per reconnect attempt (with no listener it prints each one): report at most one a minute.
 */
function mutedErrors(log: Logger): (err: Error) => void {
  let lastReported = 0;
  return (err) => {
    if (Date.now() - lastReported < 60_000) return;
    lastReported = Date.now();
    log.warn({ err: err.message }, 'queue connection error (further ones muted for a minute)');
  };
}

/** Ready while the queue's Redis is connected and the worker runs. */
function readiness(connection: RedisClient, worker: Worker) {
  if (connection.status !== 'ready') return { ready: false, reason: `redis ${connection.status}` };
  return worker.isRunning() ? { ready: true } : { ready: false, reason: 'worker not running' };
}
