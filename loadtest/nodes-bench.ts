/**
 * One process against two, same run: the API (c) as one node and as two, and the floor (d) as one
 * worker and as two, each driven closed-loop by k6 in alternating rounds, with the CPU per request
 * of the measured processes (from /proc). It tells what `npm run bench`'s two-process figures owe
 * to the number of processes sharing the machine's two cores with k6, Redis and Kafka, and what
 * to the service's code: the ratio (c)/(d) with one process each against two each.
 *
 *   FRS_SKIP_STACK=1 node loadtest/nodes-bench.ts      (ROUNDS=3 DURATION=10s VUS=64)
 *
 * Refuses (exit 1, no figures) when any step had a failed request, as every bench here does.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { publishSnapshots } from '../infra/harness/snapshots.ts';
import { freePort } from '../infra/harness/processes.ts';
import { loadConfig } from '../shared/config.ts';
import { benchApiKey, ensureSubjects } from './bench-setup.ts';
import { runK6 } from './k6-step.ts';
import { waitReady } from './ready.ts';
import { runtimeFlagsFor } from '../services/api/runtime-flags.ts';

const ROOT = join(import.meta.dirname, '..');
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const DURATION = process.env.DURATION ?? '10s';
const VUS = process.env.VUS ?? '64';

if (process.env.FRS_SKIP_STACK !== '1')
  execFileSync('bash', [join(ROOT, 'infra', 'local', 'stack.sh'), 'up'], { stdio: 'inherit' });
const subjects = join(ROOT, 'loadtest', 'results', 'subjects.json');
ensureSubjects(subjects);
await publishSnapshots();
const apiKey = await benchApiKey(loadConfig());

const procs: ChildProcess[] = [];
const start = (entry: string, env: Record<string, string>) => {
  const p = spawn(process.execPath, [...runtimeFlagsFor(entry), join(ROOT, entry)], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  procs.push(p);
  return p;
};
const [api1, api2, io2, io1] = [await freePort(), await freePort(), await freePort(), await freePort()];
const nodes = [api1, api2].map((port, i) =>
  start('services/api/main.ts', {
    PORT: String(port),
    NODE_ID: `nodes-bench-${i + 1}`,
    CONTROLS_NODE_COUNT: '2',
  }),
);
const floor2 = start('loadtest/servers/express-io.ts', { PORT: String(io2), WORKERS: '2' });
const floor1 = start('loadtest/servers/express-io.ts', { PORT: String(io1), WORKERS: '1' });
const url = (port: number) => `http://127.0.0.1:${port}`;

try {
  for (const u of [`${url(api1)}/readyz`, `${url(api2)}/readyz`, `${url(io2)}/`, `${url(io1)}/`]) {
    await waitReady(u);
  }
  const cases = [
    { name: '(c) 2 API nodes', urls: [url(api1), url(api2)], pids: nodes.map((n) => n.pid!) },
    { name: '(c) 1 API node', urls: [url(api1)], pids: [nodes[0]!.pid!] },
    { name: '(d) 2 workers', urls: [url(io2)], pids: [floor2.pid!] },
    { name: '(d) 1 worker', urls: [url(io1)], pids: [floor1.pid!] },
  ];
  const env = { KIND: 'score', API_KEY: apiKey, SUBJECTS_FILE: subjects, MODE: 'saturate', VUS };
  for (const c of cases) runK6({ ...env, BASE_URLS: c.urls.join(','), DURATION: '5s' }, c.pids); // warm-up
  const cpu = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let r = 1; r <= ROUNDS; r++) {
    for (const c of cases) {
      const step = runK6({ ...env, BASE_URLS: c.urls.join(','), DURATION }, c.pids);
      cpu.get(c.name)!.push(step.cpuUs!);
      console.error(
        `[nodes] round ${r} ${c.name}: ${step.rps.toFixed(0)} req/s, ${step.cpuUs!.toFixed(0)} µs CPU per request`,
      );
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const m = Object.fromEntries([...cpu].map(([k, xs]) => [k, median(xs)]));
  for (const [k, v] of Object.entries(m))
    console.log(`${k}: ${v.toFixed(0)} µs CPU per request (median of ${ROUNDS})`);
  console.log(
    `(c)/(d): ${(m['(c) 2 API nodes']! / m['(d) 2 workers']!).toFixed(2)}x with two processes each, ` +
      `${(m['(c) 1 API node']! / m['(d) 1 worker']!).toFixed(2)}x with one each; two processes cost ` +
      `${(m['(c) 2 API nodes']! / m['(c) 1 API node']!).toFixed(2)}x one for (c), ` +
      `${(m['(d) 2 workers']! / m['(d) 1 worker']!).toFixed(2)}x for (d)`,
  );
} finally {
  for (const p of procs) p.kill('SIGTERM');
}
