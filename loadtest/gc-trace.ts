/**
 * `node loadtest/gc-trace.ts [flags...]`: what V8's collector does on one API node pinned to a
 * core at saturation, for choosing the runtime flags of a node on one core
 * (docs/deployment.md, "An API node's runtime flags").
 *
 * For each set of flags given (one argument each, space-separated inside; '' for none; default
 * '--v8-pool-size=1' and '--single-threaded-gc'), one node runs pinned to core 1 with
 * `--trace-gc-nvp` and those flags, k6 on core 0 drives it closed loop (GC_VUS virtual users,
 * default 64) for 10 s of warm-up and GC_DURATION seconds (default 20), and the script prints
 * every full collection of the node's life: its pause, the time spent evacuating and the bytes
 * evacuated ("promoted" in V8's trace), then the scavenges' count and longest pause, the rate and
 * the CPU per request. GC_RATE=<req/s> offers that constant rate for the measured step instead
 * (the warm-up still saturates). The stack must be up.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../shared/config.ts';
import { freePort } from '../infra/harness/processes.ts';
import { publishSnapshots } from '../infra/harness/snapshots.ts';
import { benchApiKey, ensureSubjects } from './bench-setup.ts';
import { runK6 } from './k6-step.ts';
import { waitReady } from './ready.ts';

const ROOT = join(import.meta.dirname, '..');
const VUS = process.env.GC_VUS ?? '64';
const DURATION = `${Number(process.env.GC_DURATION ?? 20)}s`;
const RATE = process.env.GC_RATE;
const variants =
  process.argv.length > 2 ? process.argv.slice(2) : ['--v8-pool-size=1', '--single-threaded-gc'];

/** One line of `--trace-gc-nvp`: key=value pairs after the timestamp. */
function fields(line: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of line.matchAll(/([a-z_.]+)=([^\s]+)/g)) out.set(m[1]!, m[2]!);
  return out;
}

export interface GcSummary {
  full: { pauseMs: number; evacuateMs: number; evacuatedMb: number }[];
  scavenges: number;
  longestScavengeMs: number;
}

/** The full collections and scavenges in a `--trace-gc-nvp` log. */
export function summariseTrace(text: string): GcSummary {
  const summary: GcSummary = { full: [], scavenges: 0, longestScavengeMs: 0 };
  for (const line of text.split('\n')) {
    const f = fields(line);
    const pause = Number(f.get('pause'));
    if (f.get('gc') === 'mc') {
      summary.full.push({
        pauseMs: pause,
        evacuateMs: Number(f.get('evacuate')),
        evacuatedMb: Number(f.get('promoted')) / 2 ** 20,
      });
    } else if (f.get('gc') === 's') {
      summary.scavenges++;
      summary.longestScavengeMs = Math.max(summary.longestScavengeMs, pause);
    }
  }
  return summary;
}

async function traceOne(flags: string[], apiKey: string, subjects: string) {
  const dir = mkdtempSync(join(tmpdir(), 'frs-gc-trace-'));
  const log = join(dir, 'trace.log');
  const port = String(await freePort());
  const node = spawn(
    'taskset',
    ['-c', '1', process.execPath, ...flags, '--trace-gc-nvp', join(ROOT, 'services/api/main.ts')],
    {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', PORT: port, NODE_ID: 'gc-trace', CONTROLS_NODE_COUNT: '1' },
      stdio: ['ignore', openSync(log, 'w'), 'inherit'],
    },
  );
  try {
    await waitReady(`http://127.0.0.1:${port}/readyz`);
    const env = {
      KIND: 'score',
      VUS,
      BASE_URLS: `http://127.0.0.1:${port}`,
      API_KEY: apiKey,
      SUBJECTS_FILE: subjects,
    };
    const pin = ['taskset', '-c', '0'];
    runK6({ ...env, MODE: 'saturate', DURATION: '10s' }, [], pin);
    const measured: Record<string, string> = RATE ? { MODE: 'rate', RATE } : { MODE: 'saturate' };
    const step = runK6({ ...env, ...measured, DURATION }, [node.pid!], pin);
    return { step, gc: summariseTrace(readFileSync(log, 'utf8')) };
  } finally {
    node.kill('SIGTERM');
    await sleep(1000);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const cfg = loadConfig();
  await publishSnapshots();
  const subjects = join(ROOT, 'loadtest/results/subjects.json');
  ensureSubjects(subjects);
  const apiKey = await benchApiKey(cfg);
  for (const v of variants) {
    const flags = v.split(' ').filter(Boolean);
    const { step, gc } = await traceOne(flags, apiKey, subjects);
    const range = (xs: number[]) =>
      xs.length ? `${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}` : '-';
    console.log(
      `flags '${flags.join(' ')}': ${step.rps.toFixed(0)} req/s, ${(step.cpuUs ?? 0).toFixed(0)} µs CPU per request`,
    );
    for (const c of gc.full)
      console.log(
        `  full collection: pause ${c.pauseMs.toFixed(1)} ms, evacuating ${c.evacuateMs.toFixed(1)} ms, ${c.evacuatedMb.toFixed(1)} MB evacuated`,
      );
    console.log(
      `  ${gc.full.length} full collections, pauses ${range(gc.full.map((c) => c.pauseMs))} ms, evacuated ` +
        `${range(gc.full.map((c) => c.evacuatedMb))} MB; ${gc.scavenges} scavenges, longest ${gc.longestScavengeMs.toFixed(1)} ms`,
    );
  }
  process.exit(0);
}
