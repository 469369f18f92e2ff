import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serviceEnv } from './processes.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');

export interface PublishedSnapshot {
  capability: string;
  outcome: string;
  error?: string;
}

/**
 * Publishes the capability snapshots Redis (as `env` points to it) lacks, the way a deployment
 * gets its first ones: the refresher's one-shot, `npm run refresh -- --missing`. API nodes never
 * build snapshots, so a test whose nodes should serve them runs this first. Throws if one failed,
 * unless `allowFailures` (a test that configures a broken feed on purpose).
 */
export async function publishSnapshots(
  env: Record<string, string> = {},
  opts: { allowFailures?: boolean; stale?: boolean } = {},
): Promise<PublishedSnapshot[]> {
  // As the refresher's Redis user, as a deployment runs it.
  const entry = 'services/refresher/refresh-now.ts';
  const args = [join(ROOT, entry), '--missing', ...(opts.stale ? ['--stale'] : [])];
  const options = { cwd: ROOT, env: serviceEnv(entry, { LOG_LEVEL: 'warn', ...env }), timeout: 180_000 };
  let stdout: string;
  try {
    ({ stdout } = await run(process.execPath, args, options));
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: number };
    if (!opts.allowFailures || e.code !== 1) {
      throw new Error(`refresh --missing failed: ${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: err });
    }
    stdout = e.stdout ?? '';
  }
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as PublishedSnapshot);
}
