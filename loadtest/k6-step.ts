/** One k6 step of k6/bench.js, with the CPU the target's processes spent per request. */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMicros } from './proc-cpu.ts';

const ROOT = join(import.meta.dirname, '..');

export interface Step {
  offered: number;
  rps: number;
  requests: number;
  p50: number;
  p99: number;
  failed: number;
  /** Iterations an open-loop step could not start (k6 ran out of VUs): the rate was not offered. */
  dropped: number;
  /** CPU the target's server processes spent per request in this step (µs), from /proc. */
  cpuUs?: number;
}

let bin: string | undefined;
/** The k6 binary infra/local/k6.sh builds (once) and prints. */
export function k6Bin(): string {
  bin ??= execFileSync('bash', [join(ROOT, 'infra', 'local', 'k6.sh')], { encoding: 'utf8' }).trim();
  return bin;
}

/**
 * One k6 step (env: k6/bench.js's variables, DURATION among them). Refuses (throws) when any
 * request failed: a figure measured on errors (a 422 for every request, say) is not a figure of
 * the path it claims to measure. `prefix` runs k6 under another command (taskset).
 */
export function runK6(env: Record<string, string>, pids: number[] = [], prefix: string[] = []): Step {
  const out = join(tmpdir(), `frs-bench-${process.pid}.json`);
  const cpuBefore = cpuMicros(pids);
  const cmd = [...prefix, k6Bin(), 'run', '--quiet', '--summary-export', out, join(ROOT, 'k6', 'bench.js')];
  const r = spawnSync(cmd[0]!, cmd.slice(1), {
    // K6_ADDRESS: k6's REST API on a free port, so two benches at once do not collide on 6565.
    env: { ...process.env, K6_NO_USAGE_REPORT: 'true', K6_ADDRESS: '127.0.0.1:0', ...env },
    encoding: 'utf8',
  });
  const cpu = cpuMicros(pids) - cpuBefore;
  if (!existsSync(out)) throw new Error(`k6 failed: ${r.stderr}`);
  const m = JSON.parse(readFileSync(out, 'utf8')).metrics;
  rmSync(out);
  const step: Step = {
    offered: Number(env.RATE ?? 0),
    rps: m.http_reqs.rate,
    requests: m.http_reqs.count,
    p50: m.http_req_duration.med,
    p99: m.http_req_duration['p(99)'],
    failed: m.http_req_failed?.value ?? 0,
    dropped: m.dropped_iterations?.count ?? 0,
    ...(pids.length > 0 ? { cpuUs: cpu / m.http_reqs.count } : {}),
  };
  if (step.failed > 0 || step.requests === 0) {
    throw new Error(
      `refusing to publish: a step against ${env.BASE_URLS} had ${(step.failed * 100).toFixed(2)} % failed ` +
        `requests of ${step.requests} (the bench's organisation has no rate limit, so none are intended)`,
    );
  }
  return step;
}
