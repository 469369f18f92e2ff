import { execFileSync } from 'node:child_process';
import { serviceEnv } from '../infra/harness/processes.ts';

/**
 * Integration tests run against the real local stack: start it if it is not running (idempotent,
 * seconds when it is; it also gives the Redis servers the services' ACL users), apply migrations
 * and create topics. Then publish, as the refresher's Redis user, the capability snapshots
 * the default prefix lacks with the refresher's one-shot, as a fresh deployment does before its
 * API nodes start (nodes never build snapshots; milliseconds when they are there), and rebuild
 * the ones a stack started hours ago holds past their freshness (the ledger's is 2 h), which
 * would otherwise show as degraded sources in every test. Last, index the API keys' digests.
 */
export default function setup(): void {
  if (process.env.FRS_SKIP_STACK === '1') return;
  execFileSync('bash', ['infra/local/stack.sh', 'up'], { stdio: 'inherit' });
  const entry = 'services/refresher/refresh-now.ts';
  execFileSync(process.execPath, [entry, '--missing', '--stale'], {
    stdio: 'inherit',
    env: serviceEnv(entry, { LOG_LEVEL: 'warn' }),
  });
  // API nodes load keys from the digest index and may not SCAN: as `npm start` does, the operator
  // marks the index complete once (idempotent), so a fresh Redis serves nodes too.
  const admin = 'services/admin/cli.ts';
  execFileSync(process.execPath, [admin, 'key', 'index'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: serviceEnv(admin, { LOG_LEVEL: 'warn' }),
  });
}
