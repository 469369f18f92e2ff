/**
 * `npm run bench`: one run, one machine, same-run baselines.
 *
 * Measures, with k6 as the load generator on this same machine:
 *   (a) a bare node:http server, (b) an Express hello-world, both with 2 worker processes,
 *   (c) the full POST /v1/score path (auth, the Redis controls script, scoring, the explain copy
 *       and audit streaming to Kafka) on 2 API nodes, (d) an Express server doing the same I/O with
 *       the same clients and nothing else (loadtest/servers/express-io.ts): the floor ioredis and
 *       kafkajs set for this shape of request. The audit sink is not running meanwhile: in
 *       production it drains scores.v1 on machines of its own, so it is measured on its own after
 *       (loadtest/audit-bench.ts: sustained rows/s and score-to-row lag).
 * Every figure is measured in BENCH_ROUNDS rounds (default 5) that alternate between the targets,
 * and reported as its median and min–max; a budget is met only if its median meets it.
 * Saturation (closed loop, BENCH_VUS virtual users) first, then p50/p99 at 25 %, 50 % and 75 % of
 * each target's median saturation (open loop). The API nodes run with loadtest/runtime-probe.ts
 * preloaded: event-loop delay, GC pauses and RSS per step. Then one API node pinned to core 1
 * against (d) pinned the same way, at
 * a quarter of (c)'s pinned saturation, with how busy each core was; then (c) at half its
 * saturation with a private Kafka up and then
 * stopped, and the audit sink on its own. Writes loadtest/results/bench.md and bench.png only when
 * every stage succeeded (loadtest/bench-stages.ts); any failure exits 1 and writes nothing.
 * Before each saturation step of the side-by-side rounds, loadtest/machine-probe.ts measures how fast
 * the machine reads memory and computes, and the page lists it round by round.
 * BENCH_DURATION (seconds per step, default 10), BENCH_WARMUP (seconds, default 8: each
 * unmeasured saturation run a target gets first, repeated until its rate settles, at most
 * BENCH_WARMUP_MAX runs, default 6). BENCH_SKIP (comma-separated: pinned, outage, audit) leaves stages
 * out, and the page says so. BENCH_SHIELD=0 leaves the stack's servers on every core for the
 * pinned stage (a stack shared with others must not be re-pinned). FRS_SKIP_STACK=1: the stack is
 * already up, do not run stack.sh.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../shared/config.ts';
import { startPrivateStack } from '../infra/harness/private-stack.ts';
import { freePort } from '../infra/harness/processes.ts';
import { publishSnapshots } from '../infra/harness/snapshots.ts';
import { benchApiKey, ensureSubjects } from './bench-setup.ts';
import { Publication, runChildBench, runStages, type Stage } from './bench-stages.ts';
import { latencyChartSvg, svgToPng } from './chart.ts';
import { shieldCore, stackPids } from './core-shield.ts';
import { figure, show, type Figure } from './figures.ts';
import { MachineProbe, type MachineState } from './machine-probe.ts';
import { runK6, type Step } from './k6-step.ts';
import {
  combine,
  PROBE_ARGS,
  readProbes,
  resetProbes,
  STALL_BUDGET_MS,
  type RuntimeStats,
} from './runtime-stats.ts';
import { waitReady } from './ready.ts';
import { API_NODE_FLAGS } from '../services/api/runtime-flags.ts';

const ROOT = join(import.meta.dirname, '..');
const RESULTS = join(ROOT, 'loadtest', 'results');
const DURATION = `${Number(process.env.BENCH_DURATION ?? 10)}s`;
const VUS = Number(process.env.BENCH_VUS ?? 64);
const FRACTIONS = [0.25, 0.5, 0.75];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP = `${Number(process.env.BENCH_WARMUP ?? 8)}s`;
/** Warm-up runs of a target end once two in a row are within this fraction of each other... */
const WARMUP_SETTLED = 0.05;
/** ...or after this many. */
const WARMUP_MAX = Number(process.env.BENCH_WARMUP_MAX ?? 6);
const warmUps: { name: string; rates: number[] }[] = [];
/** The machine's state just before each saturation step of the side-by-side rounds. */
const machine = new MachineProbe();
const roundLog: { round: number; target: string; rps: number; cpuUs: number; state: MachineState }[] = [];
const SKIP = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
const SHIELD = process.env.BENCH_SHIELD !== '0';
/**
 * Runtime flags of the score-shaped servers, (c) and (d) alike, in both stages: the API node's own
 * (services/api/runtime-flags.ts, docs/deployment.md "An API node's runtime flags"), so the floor
 * runs as the node does. BENCH_NODE_FLAGS='' measures V8's defaults; `node loadtest/gc-trace.ts`
 * compares flag sets on one pinned node.
 */
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? API_NODE_FLAGS.join(' ')).split(' ').filter(Boolean);

interface Target {
  name: string;
  env: Record<string, string>;
  /** The target's server processes, whose CPU is counted per request. */
  pids: () => number[];
  /** Processes with the runtime probe preloaded (the API nodes). */
  probed: ChildProcess[];
}
/** One step's figures over the rounds, with the probed processes' runtime in each round. */
interface Measured {
  rps: Figure;
  /** Server CPU per request, where the step counted it (saturation). */
  cpuUs?: Figure;
  p50: Figure;
  p99: Figure;
  runtime?: RuntimeFigures;
}
type RuntimeFigures = Record<keyof RuntimeStats, Figure>;
interface TargetResult {
  name: string;
  saturation: Measured;
  points: (Measured & { offered: number })[];
}

const log = (m: string) => console.error(`[bench] ${m}`);

/** Figures of a step measured in rounds. */
function measured(steps: Step[], runtime: RuntimeStats[]): Measured {
  const f = (get: (s: Step) => number) => figure(steps.map(get));
  return {
    rps: f((s) => s.rps),
    ...(steps.every((s) => s.cpuUs !== undefined) && { cpuUs: f((s) => s.cpuUs!) }),
    p50: f((s) => s.p50),
    p99: f((s) => s.p99),
    ...(runtime.length > 0 && { runtime: runtimeFigures(runtime) }),
  };
}

function runtimeFigures(rounds: RuntimeStats[]): RuntimeFigures {
  const keys = Object.keys(rounds[0]!) as (keyof RuntimeStats)[];
  return Object.fromEntries(keys.map((k) => [k, figure(rounds.map((r) => r[k]))])) as RuntimeFigures;
}

/** A k6 step with the probed processes' runtime over exactly that step. */
async function probedStep(
  probed: ChildProcess[],
  env: Record<string, string>,
  pids: number[] = [],
  prefix: string[] = [],
): Promise<{ step: Step; runtime?: RuntimeStats }> {
  if (probed.length === 0) return { step: runK6(env, pids, prefix) };
  await resetProbes(probed);
  const step = runK6(env, pids, prefix);
  return { step, runtime: combine(await readProbes(probed)) };
}

/**
 * Saturates a fresh target unmeasured until its rate settles: two runs in a row within
 * WARMUP_SETTLED of each other, at most WARMUP_MAX runs. A fresh API node kept getting faster for
 * half a minute (its CPU per request fell from 443 to 357 to 308 µs over three 10 s rounds after
 * one 8 s warm-up, while (d)'s stayed at 201-206), so a fixed warm-up left (c)'s first rounds
 * measuring its warm-up and moved (c)/(d) from run to run.
 */
function warmUp(name: string, env: Record<string, string>, wrap: string[] = []): void {
  const rates: number[] = [];
  while (rates.length < WARMUP_MAX) {
    rates.push(runK6({ ...env, MODE: 'saturate', VUS: String(VUS), DURATION: WARMUP }, [], wrap).rps);
    log(`warm-up: ${name} ${rates.at(-1)!.toFixed(0)} req/s (not counted)`);
    if (settled(rates)) break;
  }
  warmUps.push({ name, rates });
}

async function measureAll(targets: Target[]): Promise<TargetResult[]> {
  // Every target first runs unmeasured until it settles: fresh processes are still compiling
  // their hot path, and (c) has far more of it.
  for (const t of targets) warmUp(t.name, t.env);
  const sat = targets.map(() => ({ steps: [] as Step[], runtime: [] as RuntimeStats[] }));
  for (let r = 1; r <= ROUNDS; r++) {
    for (const [i, t] of targets.entries()) {
      const env = { ...t.env, MODE: 'saturate', VUS: String(VUS), DURATION };
      const state = await machine.measure();
      const { step, runtime } = await probedStep(t.probed, env, t.pids());
      roundLog.push({ round: r, target: t.name, rps: step.rps, cpuUs: step.cpuUs!, state });
      log(
        `round ${r}: ${t.name} ${step.rps.toFixed(0)} req/s at saturation (${VUS} VUs), ${step.cpuUs!.toFixed(0)} µs server CPU per request` +
          ` (machine: random read ${state.readNs.toFixed(0)} ns, compute ${state.computeNs.toFixed(0)} ns)`,
      );
      sat[i]!.steps.push(step);
      if (runtime) sat[i]!.runtime.push(runtime);
    }
  }
  const saturation = sat.map((s) => measured(s.steps, s.runtime));
  // Latency at fixed fractions of each target's median saturation, also in alternating rounds.
  const rates = saturation.map((s) => FRACTIONS.map((f) => Math.max(1, Math.round(s.rps.median * f))));
  const lat = targets.map(() =>
    FRACTIONS.map(() => ({ steps: [] as Step[], runtime: [] as RuntimeStats[] })),
  );
  for (let r = 1; r <= ROUNDS; r++) {
    for (const [i, t] of targets.entries()) {
      for (const [j, rate] of rates[i]!.entries()) {
        const env = { ...t.env, MODE: 'rate', RATE: String(rate), DURATION };
        const { step, runtime } = await probedStep(t.probed, env);
        log(
          `round ${r}: ${t.name} at ${rate} req/s: p50 ${step.p50.toFixed(2)} ms, p99 ${step.p99.toFixed(2)} ms`,
        );
        lat[i]![j]!.steps.push(step);
        if (runtime) lat[i]![j]!.runtime.push(runtime);
      }
    }
  }
  return targets.map((t, i) => ({
    name: t.name,
    saturation: saturation[i]!,
    points: lat[i]!.map((l, j) => ({ offered: rates[i]![j]!, ...measured(l.steps, l.runtime) })),
  }));
}

function spawnNode(
  entry: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  prefix: string[] = [],
): ChildProcess {
  const cmd = [...prefix, process.execPath, ...nodeArgs, join(ROOT, entry)];
  return spawn(cmd[0]!, cmd.slice(1), {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    // The IPC slot is the runtime probe's channel (used only where it is preloaded).
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
}

async function withServers<T>(procs: ChildProcess[], readyUrls: string[], fn: () => Promise<T>): Promise<T> {
  try {
    await Promise.all(readyUrls.map((u) => waitReady(u)));
    return await fn();
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(
      procs.map(
        (p) =>
          new Promise((r) => (p.exitCode !== null || p.signalCode !== null ? r(null) : p.once('exit', r))),
      ),
    );
  }
}

const port = async () => String(await freePort());
const cfg = loadConfig();
const subjectsFile = join(RESULTS, 'subjects.json');
let apiKey = '';
let results: TargetResult[] = [];
let pinned:
  | {
      saturation: Measured;
      rate: number;
      quarter: Measured;
      floor: Measured;
    }
  | undefined;
let outage: { rate: number; up: Step; down: Step } | undefined;
let auditStages: Record<string, number | string>[] | undefined;
const publication = new Publication();

async function setUp(): Promise<void> {
  mkdirSync(RESULTS, { recursive: true });
  if (process.env.FRS_SKIP_STACK !== '1')
    execFileSync('bash', [join(ROOT, 'infra', 'local', 'stack.sh'), 'up'], { stdio: 'inherit' });
  ensureSubjects(subjectsFile);
  // API nodes build no snapshot: publish the ones Redis lacks first, as a deployment does.
  await publishSnapshots();
  apiKey = await benchApiKey(cfg);
}

async function sideBySide(): Promise<void> {
  const [barePort, helloPort, ioPort, ...apiPorts] = [
    await port(),
    await port(),
    await port(),
    await port(),
    await port(),
  ];
  const apiUrls = apiPorts.map((p) => `http://127.0.0.1:${p}`);
  const bare = spawnNode('loadtest/servers/bare-http.ts', { PORT: barePort!, WORKERS: '2' });
  const hello = spawnNode('loadtest/servers/express-hello.ts', { PORT: helloPort!, WORKERS: '2' });
  // (c) and (d) with the API node's runtime flags (the cluster's workers inherit them).
  const io = spawnNode('loadtest/servers/express-io.ts', { PORT: ioPort!, WORKERS: '2' }, NODE_FLAGS);
  const api = apiPorts.map((p, i) =>
    spawnNode('services/api/main.ts', { PORT: p, NODE_ID: `bench-${i + 1}`, CONTROLS_NODE_COUNT: '2' }, [
      ...NODE_FLAGS,
      ...PROBE_ARGS,
    ]),
  );
  const scoreEnv = { KIND: 'score', API_KEY: apiKey, SUBJECTS_FILE: subjectsFile };
  const targets: Target[] = [
    {
      name: '(a) node:http',
      env: { KIND: 'hello', BASE_URLS: `http://127.0.0.1:${barePort}` },
      pids: () => [bare.pid!],
      probed: [],
    },
    {
      name: '(b) Express hello',
      env: { KIND: 'hello', BASE_URLS: `http://127.0.0.1:${helloPort}` },
      pids: () => [hello.pid!],
      probed: [],
    },
    {
      name: '(c) POST /v1/score',
      env: { ...scoreEnv, BASE_URLS: apiUrls.join(',') },
      pids: () => api.map((p) => p.pid!),
      probed: api,
    },
    {
      name: '(d) Express + the same I/O',
      env: { ...scoreEnv, BASE_URLS: `http://127.0.0.1:${ioPort}` },
      pids: () => [io.pid!],
      probed: [],
    },
  ];
  // All targets run side by side and are measured in alternating rounds, so a burst of noise from
  // another tenant of this shared machine lands on every target alike.
  results = await withServers(
    [bare, hello, io, ...api],
    [
      `http://127.0.0.1:${barePort}/`,
      `http://127.0.0.1:${helloPort}/`,
      `http://127.0.0.1:${ioPort}/`,
      ...apiUrls.map((u) => `${u}/readyz`),
    ],
    async () => {
      await machine.start();
      try {
        return await measureAll(targets);
      } finally {
        machine.stop();
      }
    },
  );
}

/**
 * The latency budget on a node with a core of its own: one API node pinned to core 1, k6 (and,
 * unless BENCH_SHIELD=0, the stack's servers) on core 0; (d) pinned the same way at the same rate.
 */
async function pinnedStage(): Promise<void> {
  const pinnedPort = await port();
  const ioPort = await port();
  const url = `http://127.0.0.1:${pinnedPort}`;
  const ioUrl = `http://127.0.0.1:${ioPort}`;
  const onCore1 = ['taskset', '-c', '1'];
  const node = spawnNode(
    'services/api/main.ts',
    { PORT: pinnedPort, NODE_ID: 'bench-pinned', CONTROLS_NODE_COUNT: '1' },
    [...NODE_FLAGS, ...PROBE_ARGS],
    onCore1,
  );
  const io = spawnNode('loadtest/servers/express-io.ts', { PORT: ioPort, WORKERS: '1' }, NODE_FLAGS, onCore1);
  pinned = await withServers([node, io], [`${url}/readyz`, `${ioUrl}/`], async () => {
    const stack = stackPids(cfg);
    const unshield = SHIELD ? shieldCore(1, stack) : () => {};
    try {
      return await measurePinned(node, io, url, ioUrl);
    } finally {
      unshield();
    }
  });
}

async function measurePinned(node: ChildProcess, io: ChildProcess, url: string, ioUrl: string) {
  const env = { KIND: 'score', BASE_URLS: url, API_KEY: apiKey, SUBJECTS_FILE: subjectsFile, DURATION };
  const onCore0 = ['taskset', '-c', '0'];
  warmUp('(c) pinned', env, onCore0);
  const sat = { steps: [] as Step[], runtime: [] as RuntimeStats[] };
  for (let r = 0; r < ROUNDS; r++) {
    const { step, runtime } = await probedStep(
      [node],
      { ...env, MODE: 'saturate', VUS: String(VUS) },
      [node.pid!],
      onCore0,
    );
    sat.steps.push(step);
    sat.runtime.push(runtime!);
  }
  const saturation = measured(sat.steps, sat.runtime);
  const rate = Math.max(1, Math.round(saturation.rps.median * 0.25));
  const ioEnv = { ...env, BASE_URLS: ioUrl, MODE: 'rate', RATE: String(rate) };
  runK6({ ...ioEnv, DURATION: WARMUP }, [], onCore0);
  const quarter = { steps: [] as Step[], runtime: [] as RuntimeStats[] };
  const floor: Step[] = [];
  // (c) and (d) alternate at the same rate, so noise lands on both alike. Both count their CPU: at
  // a steady rate a request costs more than at saturation, and how busy each core was is the first
  // thing a tail depends on.
  const ioPids = [io.pid!];
  for (let r = 1; r <= ROUNDS; r++) {
    const { step, runtime } = await probedStep(
      [node],
      { ...env, MODE: 'rate', RATE: String(rate) },
      [node.pid!],
      onCore0,
    );
    quarter.steps.push(step);
    quarter.runtime.push(runtime!);
    const d = runK6(ioEnv, ioPids, onCore0);
    floor.push(d);
    const busy = (s: Step) => (s.rps * s.cpuUs!) / 1e6;
    log(
      `pinned round ${r} at ${rate} req/s: (c) p99 ${step.p99.toFixed(2)} ms, core ${(busy(step) * 100).toFixed(0)} % busy; ` +
        `(d) p99 ${d.p99.toFixed(2)} ms, core ${(busy(d) * 100).toFixed(0)} % busy`,
    );
  }
  return {
    saturation,
    rate,
    quarter: measured(quarter.steps, quarter.runtime),
    floor: measured(floor, []),
  };
}

/**
 * The same two-node path at half of (c)'s median saturation, first with its (private) Kafka up,
 * then with it stopped so every node spills to its journal. Same run, same rate.
 */
async function outageStage(): Promise<void> {
  const full = results[2]!;
  const rate = Math.round(full.saturation.rps.median * 0.5);
  const stack = await startPrivateStack('bench-outage', 'frs_bench_outage');
  try {
    const urls = [`http://127.0.0.1:${await port()}`, `http://127.0.0.1:${await port()}`];
    const nodes = urls.map((u, i) =>
      spawnNode(
        'services/api/main.ts',
        {
          ...stack.env,
          PORT: u.split(':')[2]!,
          NODE_ID: `bench-outage-${i + 1}`,
          CONTROLS_NODE_COUNT: '2',
          AUDIT_JOURNAL_DIR: join(stack.dir, 'journal'),
        },
        NODE_FLAGS,
      ),
    );
    outage = await withServers(
      nodes,
      urls.map((u) => `${u}/readyz`),
      async () => {
        const env = {
          KIND: 'score',
          BASE_URLS: urls.join(','),
          API_KEY: apiKey,
          SUBJECTS_FILE: subjectsFile,
          MODE: 'rate',
          RATE: String(rate),
          DURATION,
        };
        runK6({ ...env, DURATION: WARMUP }); // fresh nodes (and a fresh broker) still compile
        const up = runK6(env);
        await stack.kafka('stop');
        const down = runK6(env);
        await stack.kafka('start');
        return { rate, up, down };
      },
    );
  } finally {
    await stack.down();
  }
}

function auditStage(): void {
  const out = runChildBench(
    ['loadtest/audit-bench.ts', '--rps', '300', '--seconds', '15', '--backlog', '50000'],
    ROOT,
  );
  auditStages = out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, number | string>);
  for (const stage of ['end_to_end_lag', 'sustained_insert'])
    if (!auditStages.some((s) => s.stage === stage))
      throw new Error(`audit-bench.ts printed no ${stage} figure`);
}

function render(): void {
  const md = renderPage();
  publication.add(join(RESULTS, 'bench.md'), md);
  const colors = ['#1f77b4', '#2ca02c', '#d62728', '#9467bd'];
  const svg = latencyChartSvg(
    `Latency against offered load (same run, medians of ${ROUNDS} rounds)`,
    results.map((r, i) => ({
      name: r.name,
      color: colors[i]!,
      points: r.points.map((p) => ({ x: p.offered, p50: p.p50.median, p99: p.p99.median })),
    })),
  );
  publication.add(join(RESULTS, 'bench.png'), svgToPng(svg));
  console.log(md);
}

/** The probe's figure over every saturation step of the run: median (min–max). */
function machineSummary(key: keyof MachineState): string {
  return show(figure(roundLog.map((r) => r.state[key])));
}

/** One row per round: the CPU per request of (a), (c) and (d), and the machine just before (c) and (d). */
function machineRows(): string[] {
  const rounds = [...new Set(roundLog.map((r) => r.round))];
  return rounds.map((round) => {
    const of = (prefix: string) => roundLog.find((r) => r.round === round && r.target.startsWith(prefix))!;
    const [a, c, d] = [of('(a)'), of('(c)'), of('(d)')];
    return `| ${round} | ${a.cpuUs.toFixed(0)} | ${c.cpuUs.toFixed(0)} | ${d.cpuUs.toFixed(0)} | ${(c.cpuUs / d.cpuUs).toFixed(2)}x | ${c.state.readNs.toFixed(0)} / ${d.state.readNs.toFixed(0)} | ${c.state.computeNs.toFixed(0)} / ${d.state.computeNs.toFixed(0)} |`;
  });
}

const metIf = (ok: boolean) => `**${ok ? 'met' : 'NOT met'}**`;
/** The share of one core a step's server kept busy: its throughput times its CPU per request (medians). */
const busyShare = (m: Measured) => `${((m.rps.median * m.cpuUs!.median) / 1e4).toFixed(0)} %`;
const skipped = (stage: string) => `skipped (BENCH_SKIP=${stage})`;

const settled = (rates: number[]) =>
  rates.length >= 2 && Math.abs(rates.at(-1)! - rates.at(-2)!) <= WARMUP_SETTLED * rates.at(-2)!;

/**
 * The stall budget: no event-loop stall over STALL_BUDGET_MS on an API node at a quarter of
 * saturation (two nodes side by side, the worst node; and the pinned node, when it ran).
 */
function stallBudgetRows(full: TargetResult): string {
  const row = (where: string, m: Measured) => {
    const rt = m.runtime!;
    return `| stall budget: longest event-loop stall <= ${STALL_BUDGET_MS} ms, ${where} | ${show(rt.loopDelayMaxMs, 1)} ms, ${show(rt.stallsOverBudget)} stalls over it | ${metIf(rt.loopDelayMaxMs.median <= STALL_BUDGET_MS)} |`;
  };
  const quarter = full.points[FRACTIONS.indexOf(0.25)]!;
  return [
    row(`2 nodes at 25 % (${quarter.offered} req/s, worst node)`, quarter),
    ...(pinned
      ? [
          row(`one node pinned at ${pinned.rate} req/s`, pinned.quarter),
          `| GC: longest pause <= 30 ms, one node pinned at saturation | ${show(pinned.saturation.runtime!.gcMaxMs, 1)} ms | ${metIf(pinned.saturation.runtime!.gcMaxMs.median <= 30)} |`,
        ]
      : []),
  ].join('\n');
}

/**
 * The two-node p99 budget: (c) at a quarter of its saturation within 2x of (d) at a quarter of
 * its own, each over its two processes.
 */
function twoNodeP99Row(full: TargetResult, io: TargetResult): string {
  const i = FRACTIONS.indexOf(0.25);
  const [c, d] = [full.points[i]!, io.points[i]!];
  const ratio = c.p99.median / d.p99.median;
  return `| p99 at 25 % of saturation <= 2x (d)'s at 25 % of its own, 2 processes each | ${show(c.p99, 2)} ms at ${c.offered} req/s against ${show(d.p99, 2)} ms at ${d.offered} req/s: ${ratio.toFixed(2)}x | ${metIf(ratio <= 2)} |`;
}

/** The p99 budgets of one API node pinned to a core, against (d) pinned the same way. */
function pinnedBudgetRows(): string {
  return pinned
    ? `| p99 of the full path < 10 ms at a quarter of its saturation, one API node pinned to core 1 (k6${SHIELD ? ' and the stack' : ''} on core 0) | ${show(pinned.quarter.p99, 2)} ms at ${pinned.rate} req/s (saturation ${show(pinned.saturation.rps)} req/s), p50 ${show(pinned.quarter.p50, 2)} ms | ${metIf(pinned.quarter.p99.median < 10)} |
| the floor under it: (d) pinned the same way, at the same rate | p99 ${show(pinned.floor.p99, 2)} ms, p50 ${show(pinned.floor.p50, 2)} ms | ${pinned.floor.p99.median >= 10 ? '10 ms is below the floor' : 'below 10 ms'} |
| how busy each pinned core was at that rate (CPU per request, from /proc) | (c) ${busyShare(pinned.quarter)} (${show(pinned.quarter.cpuUs!)} µs), (d) ${busyShare(pinned.floor)} (${show(pinned.floor.cpuUs!)} µs) | |
| goal: p99 of the full path <= 1.5x (d)'s at the same rate, both pinned | ${(pinned.quarter.p99.median / pinned.floor.p99.median).toFixed(2)}x (medians) | ${metIf(pinned.quarter.p99.median <= 1.5 * pinned.floor.p99.median)} |
| restated: p99 of the full path <= 2x (d)'s at the same rate, both pinned | ${(pinned.quarter.p99.median / pinned.floor.p99.median).toFixed(2)}x (medians) | ${metIf(pinned.quarter.p99.median <= 2 * pinned.floor.p99.median)} |`
    : `| p99 budgets on a pinned node | ${skipped('pinned')} | |`;
}

/** The full path's latency while Kafka is down, against the steady run. */
function outageSection(full: TargetResult): string {
  return outage
    ? `| Kafka | p50 ms | p99 ms |
|---|---|---|
| up | ${outage.up.p50.toFixed(2)} | ${outage.up.p99.toFixed(2)} |
| down (records spill to the journal) | ${outage.down.p50.toFixed(2)} | ${outage.down.p99.toFixed(2)} |

p99 during the outage is ${(outage.down.p99 / outage.up.p99).toFixed(2)}x the steady run on the same private stack (one round each),
and ${(outage.down.p99 / full.points[1]!.p99.median).toFixed(2)}x the median of (c) at 50 % above, on the shared stack (budget: within 1.5x).`
    : skipped('outage');
}

function renderPage(): string {
  const [bare, hello, full, io] = results as [TargetResult, TargetResult, TargetResult, TargetResult];
  const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
  const lat = (p: Measured) => `${show(p.p50, 2)} / ${show(p.p99, 2)}`;
  const rows = results.map(
    (r) =>
      `| ${r.name} | ${show(r.saturation.rps)} | ${pct(r.saturation.rps.median / bare.saturation.rps.median)} | ${pct(
        r.saturation.rps.median / hello.saturation.rps.median,
      )} | ${show(r.saturation.cpuUs!)} | ${r.points.map((p) => `${lat(p)} at ${p.offered}`).join(' | ')} |`,
  );
  const cpu = (r: TargetResult) => r.saturation.cpuUs!.median;
  const cpuRatio = cpu(full) / cpu(hello);
  const ioRatio = cpu(full) / cpu(io);
  const runtimeRow = (label: string, m: Measured) => {
    const rt = m.runtime!;
    return `| ${label} | ${show(m.p99, 2)} | ${show(rt.loopDelayP50Ms, 2)} / ${show(rt.loopDelayP99Ms, 2)} | **${show(rt.loopDelayMaxMs, 1)}** / ${show(rt.stallsOverBudget)} | ${show(rt.gcCount)} / ${show(rt.gcTotalMs, 1)} / ${show(rt.gcMaxMs, 1)} | ${show(rt.rssMb)} / ${show(rt.heapLiveMb)} |`;
  };
  const runtimeRows = [
    runtimeRow('(c) 2 nodes at saturation', full.saturation),
    ...full.points.map((p, j) => runtimeRow(`(c) 2 nodes at ${pct(FRACTIONS[j]!)} (${p.offered} req/s)`, p)),
    ...(pinned
      ? [
          runtimeRow('(c) pinned at saturation', pinned.saturation),
          runtimeRow(`(c) pinned at ${pinned.rate} req/s`, pinned.quarter),
        ]
      : []),
  ];
  const latencyRows = [stallBudgetRows(full), twoNodeP99Row(full, io), pinnedBudgetRows()].join('\n');
  const outageMd = outageSection(full);
  const auditMd = auditStages
    ? auditStages.map((st) => `- ${JSON.stringify(st)}`).join('\n')
    : skipped('audit');
  return `# Benchmark (${new Date().toISOString()})

Same run, same machine (${process.env.HOSTNAME ?? 'local'}, 2 cores shared with the k6 load generator), 2 server processes per
target, ${DURATION} per step, ${ROUNDS} rounds alternating between targets; every figure is **median (min–max over the rounds)**,
and a budget is met only if its median meets it. Saturation with ${VUS} closed-loop VUs; latency at fixed fractions of each
target's median saturation rate. (c) and (d) run with the runtime flags \`${NODE_FLAGS.join(' ') || "V8's defaults"}\`.

| target | saturation req/s | vs (a) | vs (b) | server CPU per request µs | p50 / p99 ms at 25 % | at 50 % | at 75 % |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

No step of any round had a failed request (one would have stopped the bench before it published).

Warm-up, unmeasured: each fresh target saturated for ${WARMUP} runs until two in a row were within
${WARMUP_SETTLED * 100} % of each other (at most ${WARMUP_MAX}; one that never settled is marked):
${warmUps.map((w) => `${w.name} ${w.rates.map((r) => r.toFixed(0)).join(', ')} req/s${settled(w.rates) ? '' : ' (not settled)'}`).join('; ')}.

## Budget (same run, medians)

| budget | measured | status |
|---|---|---|
| goal: API-node CPU per scoring request <= 4x the Express hello's | ${cpu(full).toFixed(0)} µs against ${cpu(hello).toFixed(0)} µs: ${cpuRatio.toFixed(2)}x | ${metIf(cpuRatio <= 4)} |
| goal: API-node CPU per scoring request <= 1.5x (d)'s | ${cpu(full).toFixed(0)} µs against ${cpu(io).toFixed(0)} µs: ${ioRatio.toFixed(2)}x | ${metIf(ioRatio <= 1.5)} |
| restated: API-node CPU per scoring request <= 2x (d)'s | ${ioRatio.toFixed(2)}x | ${metIf(ioRatio <= 2)} |
| the floor: (d) against (b) | ${cpu(io).toFixed(0)} µs against ${cpu(hello).toFixed(0)} µs: ${(cpu(io) / cpu(hello)).toFixed(2)}x | ${cpu(io) / cpu(hello) > 4 ? '4x of (b) is below the floor' : 'below 4x'} |
${latencyRows}
| no errors but intended 429s at every step | 0 at every step of every round | met |

## The machine during the rounds (loadtest/machine-probe.ts)

Measured for 0.4 s just before each saturation step, with no load running: a dependent random
read over 128 MiB, and a small compute loop (a JSON round trip). On this machine class the read
moved from 0.4 to 15 µs within minutes while the compute loop moved less than 2x, and the scoring
path slowed more than the compute loop when reads were slow (docs/performance.md, "What moves
between runs"). The table lets a reader see which machine each round ran on; 0.4 s is a sample,
not the whole step. Random read over the run ${machineSummary('readNs')} ns, compute ${machineSummary('computeNs')} ns.

| round | (a) CPU µs | (c) CPU µs | (d) CPU µs | (c)/(d) | random read before (c) / (d), ns | compute before (c) / (d), ns |
|---|---|---|---|---|---|---|
${machineRows().join('\n')}

## The API nodes' runtime during each step (loadtest/runtime-probe.ts)

Event-loop delay (\`monitorEventLoopDelay\` at 10 ms resolution, the excess over it; worst node), the longest stall
(its maximum) and the stalls over the ${STALL_BUDGET_MS} ms budget (both nodes together), GC pauses (PerformanceObserver 'gc' entries, both
nodes together), peak RSS and the live heap a mark-compact left (worst node), each over exactly one k6 step; median (min–max)
over the rounds. A p99 close to the longest GC pause or stall is explained by it; one far above both waited on something
outside the node. \`node loadtest/stall-finder.ts\` names what ran during each stall.

| step | k6 p99 ms | loop delay p50 / p99 ms | longest stall ms / stalls over ${STALL_BUDGET_MS} ms | GC pauses count / total ms / longest ms | RSS / live heap MiB |
|---|---|---|---|---|---|
${runtimeRows.join('\n')}

## During a Kafka outage (same run, private Kafka)

${outageMd}

## Audit sink (same run, private Kafka and ClickHouse)

${auditMd}
`;
}

const stages: Stage[] = [
  { name: 'set-up (stack, subjects, organisation)', run: setUp },
  { name: '(a)-(d) side by side: saturation and latency rounds', run: sideBySide },
  ...(SKIP.has('pinned') ? [] : [{ name: 'one API node pinned to core 1 against (d)', run: pinnedStage }]),
  ...(SKIP.has('outage') ? [] : [{ name: 'Kafka outage (private Kafka)', run: outageStage }]),
  ...(SKIP.has('audit') ? [] : [{ name: 'audit sink (loadtest/audit-bench.ts)', run: auditStage }]),
  { name: 'render the page and the chart', run: render },
];
process.exitCode = await runStages(stages, publication, log);
