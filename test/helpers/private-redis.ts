import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { aclFile } from '../../infra/local/redis-users.ts';
import { createRedis } from '../../shared/clients/redis.ts';
import { freePort, waitFor } from '../../infra/harness/processes.ts';

/**
 * A redis-server of the test's own, on a free port, that the test may stop and restart: the
 * shared Redis on 6379 serves other engineers and is never touched. Data is kept in an
 * append-only file in a temporary folder, so organisations and counters survive a restart the
 * way they do in the local stack. It loads the local durable server's ACL users (a copy of the
 * file infra/local/redis.sh renders), so services pointed at it run as their users there too;
 * its default user, like the local stack's, is for the test's own set-up.
 */
export class PrivateRedis {
  readonly port: number;
  readonly url: string;
  private readonly dir = mkdtempSync(join(tmpdir(), 'frs-redis-'));
  private proc: ChildProcess | undefined;

  private constructor(port: number, server: 'durable' | 'cache') {
    this.port = port;
    this.url = `redis://127.0.0.1:${port}`;
    const acl = aclFile(server);
    if (!existsSync(acl)) throw new Error(`no ${acl}: start the local stack (bash infra/local/stack.sh up)`);
    copyFileSync(acl, join(this.dir, 'users.acl'));
  }

  /** `server`: whose ACL users it loads, the durable server's (default) or the cache server's. */
  static async start(server: 'durable' | 'cache' = 'durable'): Promise<PrivateRedis> {
    const r = new PrivateRedis(await freePort(), server);
    await r.restart();
    return r;
  }

  async restart(): Promise<void> {
    // appendfsync always: a stop right after a write must not lose it.
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', ''];
    args.push('--appendonly', 'yes', '--appendfsync', 'always', '--aclfile', join(this.dir, 'users.acl'));
    this.proc = spawn('redis-server', args, { stdio: 'ignore' });
    await waitFor(`private redis on ${this.port}`, async () => {
      const c = createRedis(this.url, { failFast: true });
      try {
        await once(c, 'ready');
        return (await c.ping()) === 'PONG';
      } finally {
        c.disconnect();
      }
    });
  }

  /** Stops the server (SIGTERM: it flushes the append-only file and exits). */
  async stop(): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const exited = once(p, 'exit');
    p.kill('SIGTERM');
    await exited;
  }

  /** Freezes the server (SIGSTOP): connections stay open and commands hang, as with a stalled Redis. */
  pause(): void {
    this.proc?.kill('SIGSTOP');
  }

  resume(): void {
    this.proc?.kill('SIGCONT');
  }

  async destroy(): Promise<void> {
    this.resume();
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
