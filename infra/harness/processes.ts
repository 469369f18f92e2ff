import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { runtimeFlagsFor } from '../../services/api/runtime-flags.ts';
import { serviceRedisEnv, type RedisService } from '../local/redis-users.ts';
import { SEED_MAX_DATA_AGE_S } from '../local/seed-data-age.ts';
import { waitFor } from './wait.ts';

export async function freePort(): Promise<number> {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const addr = srv.address();
  srv.close();
  if (addr === null || typeof addr === 'string') throw new Error('no port');
  return addr.port;
}

export interface Service {
  proc: ChildProcess;
  output: () => string;
  /** Sends the signal and waits for the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

/** The Redis ACL user each entry point runs as (infra/ops/redis/users.acl). */
const REDIS_USER_OF: Record<string, RedisService> = {
  'services/api/main.ts': 'api',
  'services/audit-sink/main.ts': 'sink',
  'services/refresher/main.ts': 'refresher',
  'services/refresher/refresh-now.ts': 'refresher',
  'services/portal/main.ts': 'portal',
  'services/admin/cli.ts': 'admin',
};

/**
 * The environment a service process gets: the tests' own with `env` on top, and the service's
 * Redis URLs logged in as its ACL user (unless `env` names a user), so every test runs the
 * services under the least privilege they have in the deployment. Test code itself (fixtures
 * that set up or inspect Redis) connects as the local stack's default user.
 */
export function serviceEnv(entry: string, env: Record<string, string> = {}): NodeJS.ProcessEnv {
  // The seed feeds' honest dates would make the stack stale within days (infra/local/seed-data-age.ts).
  const merged = { CAPABILITY_MAX_DATA_AGE_S: SEED_MAX_DATA_AGE_S, ...process.env, ...env };
  const user = Object.entries(REDIS_USER_OF).find(([path]) => entry.endsWith(path))?.[1];
  return user ? { ...merged, ...serviceRedisEnv(user, merged) } : merged;
}

/**
 * Runs a service's composition root as a real child process on the same Node as the tests, as
 * its own Redis user (`serviceEnv`). The sink's and refresher's metrics servers take any free
 * port unless a test names one.
 */
export function spawnService(entry: string, env: Record<string, string> = {}): Service {
  const proc = spawn(process.execPath, [...runtimeFlagsFor(entry), entry], {
    env: serviceEnv(entry, {
      LOG_LEVEL: 'warn',
      AUDIT_SINK_METRICS_PORT: '0',
      REFRESHER_METRICS_PORT: '0',
      ...env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  return {
    proc,
    output: () => out,
    stop: async (signal = 'SIGTERM') => {
      if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
      const exited = once(proc, 'exit');
      proc.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

// Where most tests have always imported it from; it lives with the other waits.
export { waitFor } from './wait.ts';

export interface ApiNode extends Service {
  url: string;
  port: number;
}

/**
 * Starts an API node and waits until it is ready (it loads the published snapshots and warms up
 * the score path first, which a loaded machine can stretch well past 30 s; it builds none: see
 * `publishSnapshots`). A node that exits first fails at once, with its output.
 */
export async function startApi(env: Record<string, string> = {}): Promise<ApiNode> {
  const port = await freePort();
  const svc = spawnService('services/api/main.ts', { PORT: String(port), ...env });
  const url = `http://127.0.0.1:${port}`;
  const ready = new AbortController();
  const died = once(svc.proc, 'exit', { signal: ready.signal }).then(
    ([code]) => Promise.reject(new Error(`api exited (${String(code)}) before it was ready`)),
    () => new Promise<never>(() => undefined),
  );
  try {
    await Promise.race([waitFor('api /readyz', async () => (await fetch(`${url}/readyz`)).ok, 90_000), died]);
  } catch (err) {
    await svc.stop('SIGKILL');
    throw new Error(`${String(err)}\n${svc.output()}`, { cause: err });
  } finally {
    ready.abort();
  }
  return { ...svc, url, port };
}

/**
 * A sink process. Tests run several sink groups side by side on one stack, so a sink feeds the
 * portal's Activity only when asked (AUDIT_SINK_ACTIVITY: 'true'): two feeding groups would count
 * each score twice.
 */
export function startSink(env: Record<string, string> = {}): Service {
  return spawnService('services/audit-sink/main.ts', {
    AUDIT_SINK_ACTIVITY: 'false',
    // Like Activity: counted by the one group a test asks for, not by every test's sink.
    AUDIT_SINK_VELOCITY: 'false',
    // The one group that copies list changes takes them from Redis: only the test that asks for it.
    AUDIT_SINK_LIST_CHANGES: 'false',
    ...env,
  });
}

/**
 * A sink that feeds the portal's Activity page, once its consumer joined its group (its /readyz):
 * for a test that times how soon a score reaches the page. A sink that exits first fails at once.
 */
export async function startActivitySink(env: Record<string, string> = {}): Promise<Service> {
  const port = await freePort();
  const svc = startSink({ AUDIT_SINK_ACTIVITY: 'true', AUDIT_SINK_METRICS_PORT: String(port), ...env });
  const ready = new AbortController();
  const died = once(svc.proc, 'exit', { signal: ready.signal }).then(
    ([code]) => Promise.reject(new Error(`sink exited (${String(code)}) before it was ready`)),
    () => new Promise<never>(() => undefined),
  );
  const joined = async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok;
  try {
    await Promise.race([waitFor('sink /readyz', joined, 90_000), died]);
  } catch (err) {
    await svc.stop('SIGKILL');
    throw new Error(`${String(err)}\n${svc.output()}`, { cause: err });
  } finally {
    ready.abort();
  }
  return svc;
}
