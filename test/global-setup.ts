import { execFileSync } from 'node:child_process';

/**
 * Integration tests run against the real local stack: start it if it is not running (idempotent,
 * seconds when it is), apply migrations and create topics.
 */
export default function setup(): void {
  if (process.env.FRS_SKIP_STACK === '1') return;
  execFileSync('bash', ['infra/local/stack.sh', 'up'], { stdio: 'inherit' });
}
