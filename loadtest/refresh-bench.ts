/**
 * Does a capability refresh ever make a request wait? Same-run p99 of POST /v1/score with and
 * without a refresh in flight.
 *
 * Starts one API node and the real refresher on a private key prefix, then drives the node with a
 * closed loop of keep-alive clients in alternating rounds: a steady round, then a round that
 * starts by changing a feed and running that capability's job now (queue.add), so the refresher
 * fetches, parses and publishes a new version and the node loads and swaps it while the round's
 * requests are in flight. The refresh rounds wait for the node to serve the new version, so each
 * one really contains a swap. Prints p50/p99/max per kind of round.
 *
 *   node loadtest/refresh-bench.ts [--seconds 4] [--rounds 3] [--concurrency 4]
 *                                  [--capability <a snapshot capability with a file feed>]
 *
 * ip_network_type (the default) is the heaviest snapshot: ~23 MB of range tables the refresher
 * rebuilds from the CSV files and every node reads and decodes. Kafka is given an unreachable
 * broker (the audit publisher only buffers; nothing here is about Kafka). Results also go to
 * loadtest/results/ (not committed).
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CAPABILITY_BY_NAME, FEEDS } from '../shared/capabilities/registry.ts';
import { feedLocations } from '../shared/capabilities/sources.ts';
import { createRedis } from '../shared/clients/redis.ts';
import { loadConfig } from '../shared/config.ts';
import { OrgStore } from '../shared/orgs/store.ts';
import { capabilityJobName } from '../services/refresher/jobs/capability.ts';
import { REFRESHER_QUEUE } from '../services/refresher/schedule.ts';
import { unlinkPrefix } from '../infra/harness/feed-server.ts';
import { spawnService, startApi } from '../infra/harness/processes.ts';
import { publishSnapshots } from '../infra/harness/snapshots.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '4' },
    capability: { type: 'string', default: 'ip_network_type' },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const CONCURRENCY = Number(values.concurrency);
const CAPABILITY = values.capability!;
// The capability's file feed (its declared source in the project's format) is the one replaced.
const FEED = CAPABILITY_BY_NAME.get(CAPABILITY)?.feeds.find((f) => FEEDS[f]?.layout === 'file');
if (![SECONDS, ROUNDS, CONCURRENCY].every((n) => Number.isInteger(n) && n > 0) || !FEED) {
  console.error(
    '--seconds, --rounds, --concurrency: positive integers; --capability: a snapshot capability with a file feed',
  );
  process.exit(2);
}

const BODY = JSON.stringify({ subject: { phone_number: '+447911123456', ip_address: '81.2.69.142' } });

function post(agent: Agent, port: number, apiKey: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/score',
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(BODY),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(BODY);
  });
}

interface Kind {
  name: 'steady' | 'refresh';
  latencies: number[];
  errors: number;
}

/** CONCURRENCY clients back to back until at least `seconds` passed and `done()` (polled every 20 ms) said yes. */
async function round(
  kind: Kind | undefined,
  port: number,
  apiKey: string,
  seconds: number,
  done = async () => true,
) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const until = performance.now() + seconds * 1000;
  let finished = false;
  const stopper = (async () => {
    let ok = false;
    while (!ok || performance.now() < until) {
      ok ||= await done();
      await new Promise((r) => setTimeout(r, 20));
    }
    finished = true;
  })();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (!finished) {
        const start = performance.now();
        const status = await post(agent, port, apiKey);
        if (!kind) continue;
        if (status === 200) kind.latencies.push(performance.now() - start);
        else kind.errors += 1;
      }
    }),
  );
  await stopper;
  agent.destroy();
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

const cfg = loadConfig();
const prefix = `frs-refresh-bench-${process.pid}`;
const dir = mkdtempSync(join(tmpdir(), 'frs-refresh-bench-'));
const feedFile = join(dir, 'feed.txt');
const seed = readFileSync(feedLocations(cfg)[FEED]!);
writeFileSync(feedFile, seed);
const env = {
  LOG_LEVEL: 'fatal',
  KAFKA_BROKERS: '127.0.0.1:9',
  CAPABILITY_KEY_PREFIX: prefix,
  BULLMQ_PREFIX: prefix,
  [FEEDS[FEED]!.env]: feedFile,
};

const redis = createRedis(cfg.REDIS_URL, { connectionName: 'frs-refresh-bench' });
const store = new OrgStore(redis);
const org = await store.createOrg({
  name: 'refresh-bench',
  tier: 'bureau',
  rateRps: 10_000_000,
  credits: 1e9,
});
const { api_key: apiKey } = await store.createKey(org.org_id);
// A fresh prefix: the refresher's one-shot publishes its first snapshots (nodes build none).
await publishSnapshots(env);
const node = await startApi(env);
const refresher = spawnService('services/refresher/main.ts', env);
const connection = new Redis(cfg.REDIS_URL, { maxRetriesPerRequest: null });
const queue = new Queue(REFRESHER_QUEUE, { connection, prefix });
const servedVersion = async () => {
  const health = (await (await fetch(`${node.url}/v1/health`)).json()) as {
    capabilities: Record<string, { version?: string }>;
  };
  return health.capabilities[CAPABILITY]!.version;
};

const kinds: Kind[] = [
  { name: 'steady', latencies: [], errors: 0 },
  { name: 'refresh', latencies: [], errors: 0 },
];
const swaps: number[] = [];
try {
  // Let the refresher's start-up runs (every capability, unchanged) pass before measuring.
  await new Promise((r) => setTimeout(r, 3_000));
  await round(undefined, node.port, apiKey, 2); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    await round(kinds[0], node.port, apiKey, SECONDS);
    const before = await servedVersion();
    // A changed feed (one more documentation address per round), so the job makes a new version.
    writeFileSync(feedFile, `${seed}192.0.2.${r + 1}\n`);
    const t0 = performance.now();
    await queue.add(capabilityJobName(CAPABILITY), {});
    await round(kinds[1], node.port, apiKey, SECONDS, async () => {
      const swapped = (await servedVersion()) !== before;
      if (swapped && swaps.length === r) swaps.push(Math.round(performance.now() - t0));
      return swapped;
    });
  }
} finally {
  await refresher.stop();
  await node.stop();
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
  connection.disconnect();
  await unlinkPrefix(redis, prefix);
  redis.disconnect();
  rmSync(dir, { recursive: true, force: true });
}

const rows = kinds.map((k) => {
  const sorted = [...k.latencies].sort((a, b) => a - b);
  return {
    rounds: k.name,
    requests: sorted.length,
    non200: k.errors,
    p50_ms: Number(pct(sorted, 50).toFixed(2)),
    p99_ms: Number(pct(sorted, 99).toFixed(2)),
    max_ms: Number((sorted.at(-1) ?? NaN).toFixed(2)),
  };
});
const report = {
  at: new Date().toISOString(),
  node: process.version,
  capability: CAPABILITY,
  seconds: SECONDS,
  rounds: ROUNDS,
  concurrency: CONCURRENCY,
  trigger_to_swap_ms: swaps,
  rows,
};
console.table(rows);
console.log(`trigger to swap on the node (ms): ${swaps.join(', ')}`);
mkdirSync('loadtest/results', { recursive: true });
const file = `loadtest/results/refresh-bench-${CAPABILITY}-${report.at.replace(/[:.]/g, '-')}.json`;
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
console.log(`written ${file}`);
