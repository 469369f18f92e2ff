/**
 * `npm run bench:profile`: where one score's CPU goes, stage by stage.
 *
 * One API node runs with `--cpu-prof` under k6 at saturation (closed loop, PROFILE_VUS, default
 * 64) after an unmeasured warm-up. Only the samples of the measured k6 run count: its start and
 * end are taken on the same monotonic clock the profile's timestamps use. Each sample's self time
 * goes to a stage by its call stack (loadtest/profile-stage-rules.ts) and is divided by the
 * requests k6 got answered. Writes the table into docs/performance/stages.md (between its
 * `profile-stages` markers) and the flame graph to docs/performance/score-profile.svg, only when
 * every step succeeded. PROFILE_DURATION (s, default 20), PROFILE_WARMUP (s, default 10),
 * PROFILE_INTERVAL_US (sampling interval, default 250). The node scores with a silent challenger
 * (SCORE_CHALLENGER, default the newest other version), as a deployment comparing two versions
 * does. FRS_SKIP_STACK=1: the stack is already up.
 *
 * PROFILE_RATE=<req/s> profiles the regime of the bench's pinned tail instead: k6 at that constant
 * rate, the node pinned to core 1 with k6 and the stack's servers on core 0 (as `npm run bench`
 * pins them). That table goes between the `profile-stages-rate` markers and draws no flame graph.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../shared/config.ts';
import { DEFAULT_VERSION, SCORE_VERSIONS } from '../shared/scoring/versions.ts';
import { freePort } from '../infra/harness/processes.ts';
import { publishSnapshots } from '../infra/harness/snapshots.ts';
import { benchApiKey, ensureSubjects } from './bench-setup.ts';
import { Publication, runStages } from './bench-stages.ts';
import { attribute, readProfile, selfTimes, type Attribution, type CpuProfile } from './cpuprofile-stages.ts';
import { flameGraphSvg } from './flame-svg.ts';
import { runK6, type Step } from './k6-step.ts';
import { cpuMicros } from './proc-cpu.ts';
import { GC_STAGE, NODE_STAGE, OTHER_STAGE, STAGE_RULES } from './profile-stage-rules.ts';
import { shieldCore, stackPids } from './core-shield.ts';
import { waitReady } from './ready.ts';
import { API_NODE_FLAGS } from '../services/api/runtime-flags.ts';

const ROOT = join(import.meta.dirname, '..');
const DOC = join(ROOT, 'docs', 'performance', 'stages.md');
const SVG = join(ROOT, 'docs', 'performance', 'score-profile.svg');
const DURATION_S = Number(process.env.PROFILE_DURATION ?? 20);
const WARMUP_S = Number(process.env.PROFILE_WARMUP ?? 10);
const VUS = Number(process.env.PROFILE_VUS ?? 64);
const INTERVAL_US = Number(process.env.PROFILE_INTERVAL_US ?? 250);
/** A constant rate, pinned: the regime of the bench's pinned p99, not saturation. */
const RATE = process.env.PROFILE_RATE ? Number(process.env.PROFILE_RATE) : undefined;
if (RATE !== undefined && !(RATE > 0))
  throw new Error('PROFILE_RATE must be a positive number of requests a second');
/** PROFILE_KEEP=<file>: keep the raw .cpuprofile there (for Chrome DevTools or speedscope). */
const CHALLENGER =
  process.env.SCORE_CHALLENGER ??
  SCORE_VERSIONS.filter((v) => v.id !== DEFAULT_VERSION.id && v.status !== 'retired').at(-1)?.id;
const MARK = RATE === undefined ? 'profile-stages' : 'profile-stages-rate';
const START = `<!-- ${MARK}:start (npm run bench:profile writes this section) -->`;
const END = `<!-- ${MARK}:end -->`;

const log = (m: string) => console.error(`[profile] ${m}`);
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

interface Run {
  profile: CpuProfile;
  step: Step;
  procCpuUs: number;
  fromUs: number;
  toUs: number;
  loadBefore: number;
}
let run: Run | undefined;
const publication = new Publication();

async function profileOneNode(): Promise<void> {
  const cfg = loadConfig();
  if (process.env.FRS_SKIP_STACK !== '1')
    execFileSync('bash', [join(ROOT, 'infra', 'local', 'stack.sh'), 'up'], { stdio: 'inherit' });
  const subjectsFile = join(ROOT, 'loadtest', 'results', 'subjects.json');
  ensureSubjects(subjectsFile);
  await publishSnapshots();
  const apiKey = await benchApiKey(cfg);
  const dir = mkdtempSync(join(tmpdir(), 'frs-profile-'));
  const port = String(await freePort());
  const url = `http://127.0.0.1:${port}`;
  const [cmd, ...args] = [
    ...(RATE === undefined ? [] : ['taskset', '-c', '1']),
    process.execPath,
    ...API_NODE_FLAGS,
    '--cpu-prof',
    '--cpu-prof-dir',
    dir,
    '--cpu-prof-interval',
    String(INTERVAL_US),
    join(ROOT, 'services/api/main.ts'),
  ];
  const node = spawn(cmd!, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      PORT: port,
      NODE_ID: 'bench-profile',
      CONTROLS_NODE_COUNT: '1',
      ...(CHALLENGER && { SCORE_CHALLENGER: CHALLENGER }),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((r) => node.once('exit', (code) => r(code)));
  let unshield = () => {};
  try {
    await waitReady(`${url}/readyz`);
    const env = {
      KIND: 'score',
      BASE_URLS: url,
      API_KEY: apiKey,
      SUBJECTS_FILE: join(subjectsFile),
      VUS: String(VUS),
      ...(RATE === undefined ? { MODE: 'saturate' } : { MODE: 'rate', RATE: String(RATE) }),
    };
    const onCore0 = RATE === undefined ? [] : ['taskset', '-c', '0'];
    if (RATE !== undefined) unshield = shieldCore(1, stackPids(cfg));
    const warm = runK6({ ...env, DURATION: `${WARMUP_S}s` }, [], onCore0);
    log(`warm-up ${warm.rps.toFixed(0)} req/s (not counted)`);
    const loadBefore = loadavg()[0]!;
    const cpuBefore = cpuMicros([node.pid!]);
    const fromUs = monotonicUs();
    const step = runK6({ ...env, DURATION: `${DURATION_S}s` }, [], onCore0);
    const toUs = monotonicUs();
    const procCpuUs = cpuMicros([node.pid!]) - cpuBefore;
    log(`measured ${step.requests} requests at ${step.rps.toFixed(0)} req/s`);
    node.kill('SIGTERM');
    const code = await exited;
    if (code !== 0) throw new Error(`the profiled node exited ${code}: no complete profile`);
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error(`no .cpuprofile in ${dir}`);
    if (process.env.PROFILE_KEEP) copyFileSync(join(dir, file), process.env.PROFILE_KEEP);
    const profile = readProfile(join(dir, file));
    if (profile.startTime > fromUs || profile.endTime < toUs)
      throw new Error('the profile does not cover the measured run (clocks differ?)');
    run = { profile, step, procCpuUs, fromUs, toUs, loadBefore };
  } finally {
    unshield();
    if (node.exitCode === null && node.signalCode === null) node.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

function render(): void {
  const { profile, step, procCpuUs, fromUs, toUs, loadBefore } = run!;
  const a: Attribution = attribute(profile, STAGE_RULES, fromUs, toUs);
  const per = (us: number) => us / step.requests;
  const ordered = [...a.byStage].sort((x, y) => y[1] - x[1]);
  // The profiler samples wall time: on a busy machine a sample also spans time the thread waited
  // for a core, so the shares are the finding and /proc's CPU is what they divide.
  const procPer = per(procCpuUs);
  const rows = ordered.map(
    ([stage, us]) =>
      `| ${stage} | ${((us / a.busyUs) * 100).toFixed(1)} % | ${((us / a.busyUs) * procPer).toFixed(1)} | ${per(us).toFixed(1)} |`,
  );
  const under = [...a.nodeUnder]
    .sort((x, y) => y[1] - x[1])
    .map(
      ([stage, us]) =>
        `| under ${stage} | ${((us / a.busyUs) * 100).toFixed(1)} % | ${((us / a.busyUs) * procPer).toFixed(1)} |`,
    );
  const claimed = new Set([...STAGE_RULES.map((r) => r.stage), GC_STAGE, NODE_STAGE, OTHER_STAGE]);
  const none = [...claimed].filter((s) => !a.byStage.has(s)).map((s) => `${s}: 0`);
  const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const section = `${START}
### One score, stage by stage${RATE === undefined ? '' : `, at ${RATE} req/s pinned`} (${when} UTC, load average ${loadBefore.toFixed(2)} before the measured run)

\`${RATE === undefined ? '' : `PROFILE_RATE=${RATE} `}PROFILE_DURATION=${DURATION_S} npm run bench:profile\`: one API node with \`--cpu-prof\` (sampling every ${INTERVAL_US} µs),
challenger ${CHALLENGER ?? 'none'}, ${RATE === undefined ? `k6 closed loop with ${VUS} VUs` : `pinned to core 1, k6 (on core 0 with the stack's servers) at a constant ${RATE} req/s`} after a ${WARMUP_S} s warm-up: ${step.requests} requests
answered at ${step.rps.toFixed(0)} req/s (p50 ${step.p50.toFixed(2)} ms, p99 ${step.p99.toFixed(2)} ms). Self time of the
main thread's samples in the measured run, by stage (\`loadtest/profile-stage-rules.ts\`: the innermost frame a rule
names decides, so library code a stage calls is that stage's unless it is an I/O client's), divided by the requests.

| stage | share of the main thread's busy samples | µs per request: share x /proc CPU | µs per request, sampled |
|---|---|---|---|
${rows.join('\n')}
| **total** | 100 % (idle: ${((a.idleUs / (a.idleUs + a.busyUs)) * 100).toFixed(1)} % of the window) | **${procPer.toFixed(1)}** (the node's CPU from /proc: all threads, kernel included) | ${per(a.busyUs).toFixed(1)} |

Node's own code (${NODE_STAGE}), by the innermost stage that called it:

| called under | share of busy samples | µs per request: share x /proc CPU |
|---|---|---|
${under.join('\n')}

Stages with no samples: ${none.length ? none.join('; ') : 'none'}. The profiler samples wall time: a sample spans
whatever the thread did until the next one, including time it waited for a core on a busy machine, so the sampled
column exceeds /proc's figure when the machine is loaded; the middle column spreads the node's measured CPU
(V8's background threads and the kernel's socket work included) over the stages by their shares.${
    RATE === undefined
      ? ` Flame graph of the
same window:
[score-profile.svg](score-profile.svg) (colour: the stage most of a frame's time belongs to).`
      : ''
  }
${END}`;
  const doc = readFileSync(DOC, 'utf8');
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) throw new Error(`${DOC} has no profile-stages markers`);
  publication.add(DOC, doc.slice(0, from) + section + doc.slice(to + END.length));
  const self = selfTimes(profile, fromUs, toUs);
  console.log(section);
  if (RATE !== undefined) return;
  publication.add(
    SVG,
    flameGraphSvg(
      profile,
      self,
      a.stageOf,
      ordered.map(([s]) => s),
      `POST /v1/score on one API node at saturation, ${step.requests} requests (${when} UTC); width: CPU time`,
    ),
  );
}

process.exitCode = await runStages(
  [
    {
      name:
        RATE === undefined
          ? 'profile one API node under k6 saturation'
          : `profile one pinned API node at ${RATE} req/s`,
      run: profileOneNode,
    },
    { name: 'attribute, write the table and the flame graph', run: render },
  ],
  publication,
  log,
);
