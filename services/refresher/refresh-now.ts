/**
 * `npm run --silent refresh -- <capability>`: runs a capability's refresh job now on the running
 * refresher (through its queue, so with its retries) and prints the outcome as one JSON line.
 * Exits non-zero when the refresh failed; the current snapshot then stays in place.
 *
 * `npm run --silent refresh -- --missing`: builds here, without a running refresher, every
 * capability Redis has no snapshot of yet (a fresh deployment's first snapshots, see
 * build-missing.ts), one JSON line each. Exits non-zero if one failed. `--missing --stale` also
 * rebuilds every capability not confirmed within its freshness limit (what the test setup runs).
 */
import { Queue, QueueEvents } from 'bullmq';
import { CAPABILITY_BY_NAME } from '../../shared/capabilities/registry.ts';
import { createRedis, durableRedis } from '../../shared/clients/redis.ts';
import { loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { buildMissing } from './build-missing.ts';
import { capabilityJobName } from './jobs/capability.ts';
import { REFRESHER_QUEUE } from './schedule.ts';
import { errorMessage } from '../../shared/error-message.ts';

const name = process.argv[2] ?? '';
const stale = process.argv[3] === '--stale';
if (
  (name !== '--missing' && !CAPABILITY_BY_NAME.has(name)) ||
  (process.argv[3] !== undefined && !(name === '--missing' && stale))
) {
  console.error(`usage: refresh-now <${[...CAPABILITY_BY_NAME.keys()].join('|')}|--missing [--stale]>`);
  process.exit(2);
}
const cfg = loadConfig();

async function missing(): Promise<number> {
  // The JSON lines are the output; log lines only for warnings unless LOG_LEVEL asks for more.
  const log = createLogger('refresh-now', process.env.LOG_LEVEL ?? 'warn');
  try {
    const results = await buildMissing(cfg, log, { stale });
    for (const r of results) console.log(JSON.stringify(r));
    return results.some((r) => r.outcome === 'failed') ? 1 : 0;
  } catch (err) {
    console.log(JSON.stringify({ error: errorMessage(err) }));
    return 1;
  }
}

async function throughQueue(): Promise<number> {
  const connection = createRedis(durableRedis(cfg), { blocking: true, connectionName: 'frs-refresh-now' });
  // QueueEvents blocks on its connection: one of its own.
  const eventsConnection = createRedis(durableRedis(cfg), {
    blocking: true,
    connectionName: 'frs-refresh-now-events',
  });
  const queue = new Queue(REFRESHER_QUEUE, { connection, prefix: cfg.BULLMQ_PREFIX });
  const events = new QueueEvents(REFRESHER_QUEUE, {
    connection: eventsConnection,
    prefix: cfg.BULLMQ_PREFIX,
  });
  try {
    await events.waitUntilReady();
    // One try: the operator sees the outcome now and can run it again.
    const job = await queue.add(capabilityJobName(name), {}, { removeOnComplete: 100, removeOnFail: 500 });
    console.log(JSON.stringify({ capability: name, ...(await job.waitUntilFinished(events, 120_000)) }));
    return 0;
  } catch (err) {
    console.log(JSON.stringify({ capability: name, error: errorMessage(err) }));
    return 1;
  } finally {
    await events.close();
    await queue.close();
    connection.disconnect();
    eventsConnection.disconnect();
  }
}

process.exit(name === '--missing' ? await missing() : await throughQueue());
