import type { Logger } from './logger.ts';

/**
 * The order in which a service's resources close. Intake stops first (no new work), then
 * in-flight work drains (HTTP requests, the audit buffer), then workers and consumers, then the
 * clients everything above used.
 */
export const PHASES = ['intake', 'drain', 'workers', 'clients'] as const;
export type Phase = (typeof PHASES)[number];

interface Entry {
  name: string;
  phase: Phase;
  close: () => Promise<void> | void;
}

/**
 * One registry of everything a service created, so each resource is closed exactly once, in
 * phases, whatever failed (a resource that throws or hangs does not keep the others open).
 * A resource is registered the moment it is created: a start-up that fails halfway still closes
 * what it had built.
 */
export class Resources {
  private entries: Entry[] = [];

  /** Registers `close` under `name` and returns `resource`, so creation and registration are one line. */
  add<T>(phase: Phase, name: string, resource: T, close: (r: T) => Promise<unknown> | unknown): T {
    this.entries.push({ name, phase, close: async () => void (await close(resource)) });
    return resource;
  }

  /**
   * Closes every registered resource, phase by phase, each phase with `Promise.allSettled` and no
   * later than `deadline` (ms since the epoch). Resolves true when everything closed cleanly;
   * false when something threw or did not finish in time (it is left behind, and the caller
   * exits anyway). Safe to call twice: the second call finds nothing left.
   */
  async closeAll(log: Logger, deadline: number): Promise<boolean> {
    const entries = this.entries;
    this.entries = [];
    let clean = true;
    for (const phase of PHASES) {
      const due = entries.filter((e) => e.phase === phase);
      if (due.length === 0) continue;
      const results = await Promise.allSettled(due.map((e) => beforeDeadline(e, deadline)));
      results.forEach((r, i) => {
        if (r.status === 'rejected') {
          clean = false;
          log.error({ resource: due[i]!.name, phase, err: String(r.reason) }, 'close failed');
        }
      });
    }
    return clean;
  }
}

function beforeDeadline(e: Entry, deadline: number): Promise<void> {
  const ms = Math.max(0, deadline - Date.now());
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not close within the shutdown deadline`)), ms);
    timer.unref();
  });
  return Promise.race([Promise.resolve().then(e.close), late]).finally(() => clearTimeout(timer));
}

/** What every service's factory returns: its main.ts only wires signals to these. */
export interface Service {
  start(): Promise<void>;
  /** Stops within the service's deadline; resolves false if anything failed or was left behind. */
  stop(): Promise<boolean>;
}
