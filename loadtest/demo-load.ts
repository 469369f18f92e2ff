/**
 * `node loadtest/demo-load.ts <demo credentials file> [seconds]`: a steady load on the two API
 * nodes of `npm start` or `npm run start:cluster` with the demo keys the start wrote: 150
 * scores/s with the bureau key and 45/s with the assess key (under their rate limits of 200 and
 * 50), alternating nodes, each request a different subject. Prints what was sent, the statuses and
 * the latency; used for the memory figures of docs/scale-out.md ("Running it locally"), where k6
 * would need organisations of its own.
 */
import { readFileSync } from 'node:fs';

const [file, secondsArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node loadtest/demo-load.ts <demo-credentials.json> [seconds]');
  process.exit(2);
}
const creds = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { api_key: string }>;
const seconds = Number(secondsArg ?? 60);
const PLAN = [
  { key: creds.bureau!.api_key, perSecond: 150 },
  { key: creds.assess!.api_key, perSecond: 45 },
];
const PORTS = [8080, 8081];
/** Ticks per second: requests go out in small bursts rather than one per second. */
const TICKS = 10;

const statuses = new Map<number, number>();
const latencies: number[] = [];
let sent = 0;

async function score(key: string): Promise<void> {
  const i = sent++;
  const t = performance.now();
  let status = 0; // no answer
  try {
    const res = await fetch(`http://127.0.0.1:${PORTS[i % PORTS.length]}/v1/score`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        subject: {
          phone_number: `+4479111${String(i % 100_000).padStart(5, '0')}`,
          ip_address: `81.2.69.${i % 250}`,
        },
      }),
    });
    await res.arrayBuffer();
    status = res.status;
  } catch {
    // counted as status 0
  }
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
  latencies.push(performance.now() - t);
}

const pending = new Set<Promise<void>>();
const start = performance.now();
const timers = PLAN.map((p) =>
  setInterval(() => {
    for (let k = 0; k < p.perSecond / TICKS; k++) {
      const req = score(p.key).finally(() => pending.delete(req));
      pending.add(req);
    }
  }, 1000 / TICKS),
);
await new Promise((r) => setTimeout(r, seconds * 1000));
timers.forEach(clearInterval);
const sendingS = (performance.now() - start) / 1000;
await Promise.all(pending);
latencies.sort((a, b) => a - b);
const pct = (q: number) => Number(latencies[Math.floor(latencies.length * q)]!.toFixed(1));
console.log(
  JSON.stringify({
    sent,
    per_s: Number((sent / sendingS).toFixed(1)),
    statuses: Object.fromEntries(statuses),
    p50_ms: pct(0.5),
    p99_ms: pct(0.99),
  }),
);
