/**
 * `npm run --silent refresh -- <capability>`: runs a capability's refresh job now on the running
 * refresher (through its queue, so with its retries) and prints the outcome as one JSON line.
 * Exits non-zero when the refresh failed; the current snapshot then stays in place.
 */
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { CAPABILITY_BY_NAME } from '../../shared/capabilities/registry.ts';
import { loadConfig } from '../../shared/config.ts';
import { capabilityJobName } from './jobs/capability.ts';
import { REFRESHER_QUEUE } from './schedule.ts';

const name = process.argv[2] ?? '';
if (!CAPABILITY_BY_NAME.has(name)) {
  console.error(`usage: refresh-now <${[...CAPABILITY_BY_NAME.keys()].join('|')}>`);
  process.exit(2);
}
const cfg = loadConfig();
const connection = new Redis(cfg.REDIS_URL, {
  maxRetriesPerRequest: null,
  connectionName: 'frs-refresh-now',
});
const queue = new Queue(REFRESHER_QUEUE, { connection, prefix: cfg.BULLMQ_PREFIX });
const events = new QueueEvents(REFRESHER_QUEUE, {
  connection: connection.duplicate(),
  prefix: cfg.BULLMQ_PREFIX,
});
let code = 0;
try {
  await events.waitUntilReady();
  // One try: the operator sees the outcome now and can run it again.
  const job = await queue.add(capabilityJobName(name), {}, { removeOnComplete: 100, removeOnFail: 500 });
  console.log(JSON.stringify({ capability: name, ...(await job.waitUntilFinished(events, 120_000)) }));
} catch (err) {
  console.log(JSON.stringify({ capability: name, error: (err as Error).message }));
  code = 1;
} finally {
  await events.close();
  await queue.close();
  connection.disconnect();
}
process.exit(code);
