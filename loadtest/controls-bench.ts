/**
 * Same-run cost of the cluster controls on POST /v1/score.
 *
 * Starts two API processes on this machine against the same Redis: one with the controls
 * (CONTROLS=on, the default) and one without (CONTROLS=off, which exists for this baseline only).
 * A closed loop of keep-alive HTTP clients drives them in alternating rounds, so drift of the
 * machine hits both modes alike, and a third mode sends an Idempotency-Key on every request (the
 * stored 200 is a second Redis write). Prints p50/p99 latency, throughput and the added latency.
 *
 *   node loadtest/controls-bench.ts [--seconds 5] [--rounds 3] [--concurrency 16] [--kafka]
 *
 * Kafka is not on the request path (the audit publisher only buffers), so by default the nodes
 * get an unreachable broker and the benchmark does not flood the shared scores.v1 topic; pass
 * --kafka to publish for real. Results are also written to loadtest/results/ (not committed).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import { createRedis } from '../shared/clients/redis.ts';
import { loadConfig } from '../shared/config.ts';
import { OrgStore } from '../shared/orgs/store.ts';
import { startApi, type ApiNode } from '../infra/harness/processes.ts';
import { publishSnapshots } from '../infra/harness/snapshots.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '16' },
    kafka: { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const CONCURRENCY = Number(values.concurrency);
if (![SECONDS, ROUNDS, CONCURRENCY].every((n) => Number.isInteger(n) && n > 0)) {
  console.error('--seconds, --rounds and --concurrency must be positive integers');
  process.exit(2);
}

const BODY = JSON.stringify({ subject: { phone_number: '+447911123456', ip_address: '81.2.69.142' } });

interface Mode {
  name: 'off' | 'on' | 'on+idempotency';
  node: ApiNode;
  idempotent: boolean;
  latencies: number[];
  ms: number;
  errors: number;
}

let seq = 0;
function post(agent: Agent, port: number, apiKey: string, idempotent: boolean): Promise<number> {
  const headers: Record<string, string | number> = {
    authorization: `Bearer ${apiKey}`,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(BODY),
  };
  if (idempotent) headers['idempotency-key'] = `bench-${process.pid}-${++seq}`;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/v1/score', method: 'POST', agent, headers },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(BODY);
  });
}

/** CONCURRENCY clients back to back for `seconds`; each 200 adds its latency. */
async function round(mode: Mode, apiKey: string, seconds: number, record: boolean): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const until = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const start = performance.now();
        const status = await post(agent, mode.node.port, apiKey, mode.idempotent);
        if (!record) continue;
        if (status === 200) mode.latencies.push(performance.now() - start);
        else mode.errors += 1;
      }
    }),
  );
  if (record) mode.ms += performance.now() - t0;
  agent.destroy();
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const cfg = loadConfig();
// API nodes build no snapshot: publish the ones Redis lacks first, as a deployment does.
await publishSnapshots();
const redis = createRedis(cfg.REDIS_URL, { connectionName: 'frs-bench' });
const store = new OrgStore(redis);
// Limits far above what one machine can send, so no request is refused and both modes score.
const org = await store.createOrg({
  name: 'bench',
  tier: 'assess',
  rateRps: 10_000_000,
  credits: 1_000_000_000,
});
const { api_key: apiKey } = await store.createKey(org.org_id);

const env = { LOG_LEVEL: 'fatal', ...(values.kafka ? {} : { KAFKA_BROKERS: '127.0.0.1:9' }) };
const [offNode, onNode] = await Promise.all([
  startApi({ ...env, CONTROLS: 'off' }),
  startApi({ ...env, CONTROLS: 'on' }),
]);
const modes: Mode[] = [
  { name: 'off', node: offNode!, idempotent: false, latencies: [], ms: 0, errors: 0 },
  { name: 'on', node: onNode!, idempotent: false, latencies: [], ms: 0, errors: 0 },
  { name: 'on+idempotency', node: onNode!, idempotent: true, latencies: [], ms: 0, errors: 0 },
];

try {
  for (const m of modes) await round(m, apiKey, 2, false); // warm-up: JIT, connections, script cache
  for (let r = 0; r < ROUNDS; r++) for (const m of modes) await round(m, apiKey, SECONDS, true);
} finally {
  await Promise.all([offNode!.stop(), onNode!.stop()]);
  redis.disconnect();
}

const rows = modes.map((m) => {
  const sorted = [...m.latencies].sort((a, b) => a - b);
  return {
    mode: m.name,
    requests: sorted.length,
    non200: m.errors,
    rps: Math.round(sorted.length / (m.ms / 1000)),
    p50_ms: Number(pct(sorted, 50).toFixed(3)),
    p99_ms: Number(pct(sorted, 99).toFixed(3)),
  };
});
const base = rows[0]!;
const report = {
  at: new Date().toISOString(),
  node: process.version,
  seconds: SECONDS,
  rounds: ROUNDS,
  concurrency: CONCURRENCY,
  kafka: values.kafka,
  rows: rows.map((r) => ({
    ...r,
    added_p50_ms: Number((r.p50_ms - base.p50_ms).toFixed(3)),
    added_p99_ms: Number((r.p99_ms - base.p99_ms).toFixed(3)),
    throughput_ratio: Number((r.rps / base.rps).toFixed(3)),
  })),
};
console.table(report.rows);
mkdirSync('loadtest/results', { recursive: true });
const file = `loadtest/results/controls-bench-${report.at.replace(/[:.]/g, '-')}.json`;
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
console.log(`written ${file}`);
