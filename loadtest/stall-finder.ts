/**
 * `node loadtest/stall-finder.ts`: names every event-loop stall over the budget (20 ms) on one
 * API node at a quarter of its saturation, the regime of the bench's latency steps.
 *
 * One node runs pinned to core 1 (k6 on core 0; the shared stack's servers are left where they
 * are) with `--cpu-prof` and the runtime probe preloaded. After a saturation warm-up that also
 * sets the rate (STALL_RATE overrides it), k6 offers a constant rate for STALL_DURATION seconds
 * (default 60); then the node stops. Every stall the probe's 10 ms timer saw (more than the
 * budget late) is printed with what ran in it, from the profile's samples in that window
 * (loadtest/stall-causes.ts): frames, GC, time without a core. So are the profile's stretches with
 * no idle sample over the budget (an upper bound: one may span several loop turns). Beside them:
 * the probe's longest loop delay, GC pauses and live heap over the same window, the node's CPU
 * per request and the machine's load average. STALL_INTERVAL_US: sampling interval (default 500);
 * STALL_KEEP=<file> keeps the .cpuprofile; STALL_PIN=0 runs unpinned; STALL_SINCE_START=1 also
 * lists the stalls of start-up and warm-up (snapshot loads). The node reads the snapshots under a
 * private prefix, where the routing table and the Tor exit list are published again a third and
 * two thirds into the step, as refreshes do (loadtest/snapshot-swaps.ts; STALL_SWAPS=0: none).
 * The stack must be up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedis } from '../shared/clients/redis.ts';
import { loadConfig } from '../shared/config.ts';
import { freePort } from '../infra/harness/processes.ts';
import { publishSnapshots } from '../infra/harness/snapshots.ts';
import { benchApiKey, ensureSubjects } from './bench-setup.ts';
import { readProfile, type CpuProfile } from './cpuprofile-stages.ts';
import { runK6 } from './k6-step.ts';
import {
  PROBE_ARGS,
  readProbes,
  readStalls,
  resetProbes,
  STALL_BUDGET_MS,
  type RuntimeStats,
} from './runtime-stats.ts';
import { copySnapshots, dropSnapshots } from './snapshot-swaps.ts';
import { describeStall, explainStalls, findStalls, type Stall } from './stall-causes.ts';
import { waitReady } from './ready.ts';
import { API_NODE_FLAGS } from '../services/api/runtime-flags.ts';

const ROOT = join(import.meta.dirname, '..');
const DURATION_S = Number(process.env.STALL_DURATION ?? 60);
const WARMUP_S = Number(process.env.STALL_WARMUP ?? 10);
const INTERVAL_US = Number(process.env.STALL_INTERVAL_US ?? 500);
const PIN = process.env.STALL_PIN !== '0';
const SWAPS = process.env.STALL_SWAPS !== '0';
const log = (m: string) => console.error(`[stalls] ${m}`);
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

function startNode(dir: string, port: string, prefix: string): ChildProcess {
  const cmd = [
    ...(PIN ? ['taskset', '-c', '1'] : []),
    process.execPath,
    ...API_NODE_FLAGS,
    '--cpu-prof',
    '--cpu-prof-dir',
    dir,
    '--cpu-prof-interval',
    String(INTERVAL_US),
    ...PROBE_ARGS,
    join(ROOT, 'services/api/main.ts'),
  ];
  return spawn(cmd[0]!, cmd.slice(1), {
    cwd: ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      PORT: port,
      NODE_ID: 'stall-finder',
      CONTROLS_NODE_COUNT: '1',
      CAPABILITY_KEY_PREFIX: prefix,
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
}

const fmtRuntime = (r: RuntimeStats) =>
  `loop delay p99 ${r.loopDelayP99Ms.toFixed(1)} / max ${r.loopDelayMaxMs.toFixed(1)} ms, ` +
  `${r.stallsOverBudget} stalls over ${STALL_BUDGET_MS} ms; GC ${r.gcCount} pauses, ${r.gcTotalMs.toFixed(0)} ms, ` +
  `longest ${r.gcMaxMs.toFixed(1)} ms; RSS ${r.rssMb.toFixed(0)} MiB, live heap ${r.heapLiveMb.toFixed(0)} MiB`;

/** Warm-up, the measured rate step, and the window it covered on the profile's clock. */
async function drive(node: ChildProcess, url: string, apiKey: string, subjectsFile: string, prefix: string) {
  const env = { KIND: 'score', BASE_URLS: url, API_KEY: apiKey, SUBJECTS_FILE: subjectsFile };
  const onCore0 = PIN ? ['taskset', '-c', '0'] : [];
  let sat = 0;
  for (let i = 0; i < 2; i++) {
    sat = runK6({ ...env, MODE: 'saturate', VUS: '64', DURATION: `${WARMUP_S}s` }, [], onCore0).rps;
    log(`saturation run ${i + 1}: ${sat.toFixed(0)} req/s (load ${load()})`);
  }
  const rate = Number(process.env.STALL_RATE ?? Math.round(sat / 4));
  await resetProbes([node]);
  // Two refreshes of the routing table and the exit list during the step, from a process of its
  // own: k6 runs synchronously here.
  const swaps = SWAPS
    ? spawn(
        process.execPath,
        [
          join(ROOT, 'loadtest', 'snapshot-swaps.ts'),
          prefix,
          ...[1, 2].map((k) => String(Math.round((k * DURATION_S) / 3))),
        ],
        {
          cwd: ROOT,
          stdio: ['ignore', 'inherit', 'inherit'],
        },
      )
    : undefined;
  const loadBefore = load();
  const fromUs = monotonicUs();
  const step = runK6(
    { ...env, MODE: 'rate', RATE: String(rate), DURATION: `${DURATION_S}s` },
    [node.pid!],
    onCore0,
  );
  const toUs = monotonicUs();
  if (swaps && swaps.exitCode === null) await new Promise((r) => swaps.once('exit', r));
  const [runtime] = await readProbes([node]);
  const [probed] = await readStalls([node]);
  log(
    `${rate} req/s for ${DURATION_S} s: p50 ${step.p50.toFixed(2)} / p99 ${step.p99.toFixed(2)} ms, ` +
      `${step.cpuUs!.toFixed(0)} µs CPU per request; load before ${loadBefore}, after ${load()}`,
  );
  log(fmtRuntime(runtime!));
  return { fromUs, toUs, probed: probed! };
}

/** The stalls of [fromUs, toUs), each with what ran in it, and a line of totals by kind. */
function report(profile: CpuProfile, fromUs: number, toUs: number): void {
  const stalls = findStalls(profile, fromUs, toUs, STALL_BUDGET_MS * 1000, INTERVAL_US);
  const share = (s: Stall, us: number) => us / s.durationUs > 0.5;
  const kinds = {
    'mostly GC': stalls.filter((s) => share(s, s.gcUs)),
    'mostly without a core': stalls.filter((s) => share(s, s.offCoreUs)),
  };
  const js = stalls.filter((s) => !share(s, s.gcUs) && !share(s, s.offCoreUs));
  log(
    `${stalls.length} stretches over ${STALL_BUDGET_MS} ms with no idle sample in ${((toUs - fromUs) / 1e6).toFixed(0)} s, ` +
      `the longest ${(Math.max(0, ...stalls.map((s) => s.durationUs)) / 1000).toFixed(1)} ms: ` +
      Object.entries(kinds)
        .map(([k, v]) => `${v.length} ${k}`)
        .join(', ') +
      `, ${js.length} mostly JavaScript`,
  );
  for (const s of stalls) console.log(describeStall(s));
}

async function main(): Promise<void> {
  const cfg = loadConfig();
  const subjectsFile = join(ROOT, 'loadtest', 'results', 'subjects.json');
  ensureSubjects(subjectsFile);
  await publishSnapshots();
  const apiKey = await benchApiKey(cfg);
  // The node reads snapshots under a prefix of its own, where the swaps publish (snapshot-swaps.ts).
  const prefix = `${cfg.CAPABILITY_KEY_PREFIX}-stalls-${process.pid}`;
  const redis = createRedis(cfg.REDIS_URL, { connectionName: 'stall-finder' });
  await copySnapshots(redis, cfg.CAPABILITY_KEY_PREFIX, prefix);
  const dir = mkdtempSync(join(tmpdir(), 'frs-stalls-'));
  const port = String(await freePort());
  const url = `http://127.0.0.1:${port}`;
  const startUs = monotonicUs();
  const node = startNode(dir, port, prefix);
  const exited = new Promise<number | null>((r) => node.once('exit', (code) => r(code)));
  try {
    await waitReady(`${url}/readyz`);
    log(`ready after ${((monotonicUs() - startUs) / 1e6).toFixed(1)} s`);
    const { fromUs, toUs, probed } = await drive(node, url, apiKey, subjectsFile, prefix);
    node.kill('SIGTERM');
    if ((await exited) !== 0) throw new Error('the node did not exit cleanly: no complete profile');
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error(`no .cpuprofile in ${dir}`);
    if (process.env.STALL_KEEP) copyFileSync(join(dir, file), process.env.STALL_KEEP);
    const profile = readProfile(join(dir, file));
    log(
      `measured window: +${((fromUs - startUs) / 1e6).toFixed(1)} s to +${((toUs - startUs) / 1e6).toFixed(1)} s after spawn`,
    );
    if (process.env.STALL_SINCE_START === '1') {
      log('start-up and warm-up:');
      report(profile, startUs, fromUs);
    }
    log('the measured rate step, stretches with no idle sample (an upper bound: may span loop turns):');
    report(profile, fromUs, toUs);
    log(`the measured rate step, the ${probed.length} stalls the probe's 10 ms timer saw, longest first:`);
    const explained = explainStalls(profile, probed, fromUs, INTERVAL_US);
    for (const s of explained.sort((a, b) => b.durationUs - a.durationUs)) console.log(describeStall(s));
  } finally {
    if (node.exitCode === null && node.signalCode === null) node.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    await dropSnapshots(redis, prefix);
    redis.disconnect();
  }
}

await main();
