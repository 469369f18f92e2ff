/**
 * `node loadtest/flags-ab.ts`: two sets of runtime flags on the bench's two-node shape. Two pairs
 * of API nodes run side by side, unpinned, with the runtime probe preloaded: pair A with FLAGS_A
 * (default: none, V8's defaults), pair B with FLAGS_B (default: the API node's own,
 * services/api/runtime-flags.ts). Each pair is saturated twice unmeasured, then k6 offers RATE
 * req/s (default 585, a quarter of the pair's saturation on the usual machine) across the pair's
 * two nodes for DURATION (default 15s), ROUNDS times (default 6), the pairs alternating and
 * swapping who goes first each round. Per step: p50/p99, the longest event-loop stall, the
 * stalls over the 20 ms budget, the longest GC pause and the nodes' CPU per request; then the
 * medians per pair. The stack must be up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig } from '../shared/config.ts';
import { freePort } from '../infra/harness/processes.ts';
import { publishSnapshots } from '../infra/harness/snapshots.ts';
import { API_NODE_FLAGS } from '../services/api/runtime-flags.ts';
import { benchApiKey, ensureSubjects } from './bench-setup.ts';
import { figure } from './figures.ts';
import { runK6 } from './k6-step.ts';
import { waitReady } from './ready.ts';
import { PROBE_ARGS, combine, readProbes, resetProbes } from './runtime-stats.ts';

const ROOT = join(import.meta.dirname, '..');
const RATE = process.env.RATE ?? '585';
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const DURATION = process.env.DURATION ?? '15s';
const split = (v: string) => v.split(' ').filter(Boolean);
const FLAGS = {
  A: split(process.env.FLAGS_A ?? ''),
  B: split(process.env.FLAGS_B ?? API_NODE_FLAGS.join(' ')),
};
type Side = keyof typeof FLAGS;

interface Pair {
  side: Side;
  nodes: ChildProcess[];
  urls: string;
}

async function startPair(side: Side): Promise<Pair> {
  const ports = [await freePort(), await freePort()];
  const nodes = ports.map((port, i) =>
    spawn(process.execPath, [...FLAGS[side], ...PROBE_ARGS, join(ROOT, 'services/api/main.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        LOG_LEVEL: 'warn',
        PORT: String(port),
        NODE_ID: `flags-ab-${side}-${i + 1}`,
        CONTROLS_NODE_COUNT: '2',
      },
      // The IPC slot is the runtime probe's channel.
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    }),
  );
  await Promise.all(ports.map((p) => waitReady(`http://127.0.0.1:${p}/readyz`)));
  return { side, nodes, urls: ports.map((p) => `http://127.0.0.1:${p}`).join(',') };
}

const cfg = loadConfig();
await publishSnapshots();
const subjects = join(ROOT, 'loadtest/results/subjects.json');
ensureSubjects(subjects);
const env = { KIND: 'score', API_KEY: await benchApiKey(cfg), SUBJECTS_FILE: subjects, VUS: '64' };
const pairs = { A: await startPair('A'), B: await startPair('B') };
try {
  for (const p of [pairs.A, pairs.B, pairs.A, pairs.B]) {
    const warm = runK6({ ...env, BASE_URLS: p.urls, MODE: 'saturate', DURATION: '8s' });
    console.error(`[flags-ab] warm-up ${p.side}: ${warm.rps.toFixed(0)} req/s (not counted)`);
  }
  const steps: Record<Side, { p99: number; stall: number; gc: number; cpu: number }[]> = { A: [], B: [] };
  for (let r = 1; r <= ROUNDS; r++) {
    for (const p of r % 2 ? [pairs.A, pairs.B] : [pairs.B, pairs.A]) {
      await resetProbes(p.nodes);
      const pids = p.nodes.map((n) => n.pid!);
      const s = runK6({ ...env, BASE_URLS: p.urls, MODE: 'rate', RATE, DURATION }, pids);
      const rt = combine(await readProbes(p.nodes));
      steps[p.side].push({ p99: s.p99, stall: rt.loopDelayMaxMs, gc: rt.gcMaxMs, cpu: s.cpuUs! });
      console.log(
        `round ${r} ${p.side}: p50 ${s.p50.toFixed(2)} / p99 ${s.p99.toFixed(2)} ms, longest stall ` +
          `${rt.loopDelayMaxMs.toFixed(1)} ms (${rt.stallsOverBudget} over 20 ms), longest GC pause ` +
          `${rt.gcMaxMs.toFixed(1)} ms, ${s.cpuUs!.toFixed(0)} µs CPU per request`,
      );
    }
  }
  for (const side of ['A', 'B'] as const) {
    const m = (f: (x: (typeof steps)[Side][number]) => number) => figure(steps[side].map(f)).median;
    console.log(
      `${side} (${FLAGS[side].join(' ') || "V8's defaults"}): medians p99 ${m((x) => x.p99).toFixed(2)} ms, ` +
        `longest stall ${m((x) => x.stall).toFixed(1)} ms, longest GC pause ${m((x) => x.gc).toFixed(1)} ms, ` +
        `${m((x) => x.cpu).toFixed(0)} µs CPU per request`,
    );
  }
} finally {
  for (const n of [...pairs.A.nodes, ...pairs.B.nodes]) n.kill('SIGTERM');
}
process.exit(0);
