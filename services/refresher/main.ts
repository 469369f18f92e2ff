/**
 * Composition root of the refresher: BullMQ job schedulers and one worker that runs them.
 * Today it holds the audit retention job; capability snapshot jobs join the `jobs` list.
 */
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { hostname } from 'node:os';
import { createClickHouse } from '../../shared/clients/clickhouse.ts';
import { loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/logger.ts';
import type { RefresherJob } from './jobs/job.ts';
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
const ch = createClickHouse(cfg.CLICKHOUSE_URL);

const jobs: RefresherJob[] = [retentionJob({ ch, database: cfg.CLICKHOUSE_DATABASE, log })];

const queue = new Queue(REFRESHER_QUEUE, { connection, prefix: cfg.BULLMQ_PREFIX });
await registerSchedulers(queue, jobs);
const worker = new Worker(REFRESHER_QUEUE, dispatcher(jobs), {
  connection,
  prefix: cfg.BULLMQ_PREFIX,
  concurrency: 1,
});
worker.on('failed', (job, err) => log.error({ job: job?.name, err: String(err) }, 'refresher job failed'));
worker.on('completed', (job) => log.info({ job: job.name }, 'refresher job done'));
log.info({ jobs: jobs.map((j) => j.name) }, 'refresher running');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  let failed = false;
  try {
    await worker.close();
    await queue.close();
    await ch.close();
    await connection.quit();
  } catch (err) {
    failed = true;
    log.error({ err }, 'shutdown error');
  }
  process.exit(failed ? 1 : 0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
