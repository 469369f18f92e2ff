import type { Logger } from './logger.ts';

export interface Shutdown {
  /** True once shutdown has begun: background loops stop retrying. */
  readonly stopping: boolean;
}

/**
 * Ordered, once-only shutdown for a composition root (stop taking work, drain, flush, close clients, in that order). On SIGTERM or
 * SIGINT it runs `steps` and exits 0, or 1 if a step threw; an uncaught exception is logged,
 * runs the same steps, and exits 1 whatever they did.
 */
export function handleShutdown(log: Logger, steps: () => Promise<void>): Shutdown {
  const state = { stopping: false };
  const run = async (reason: string): Promise<number> => {
    if (state.stopping) return 0;
    state.stopping = true;
    log.info({ reason }, 'shutting down');
    try {
      await steps();
      return 0;
    } catch (err) {
      log.error({ err }, 'shutdown error');
      return 1;
    }
  };
  process.on('SIGTERM', () => void run('SIGTERM').then((code) => process.exit(code)));
  process.on('SIGINT', () => void run('SIGINT').then((code) => process.exit(code)));
  process.on('uncaughtException', (err) => {
    log.fatal({ err }, 'uncaught exception');
    void run('uncaughtException').finally(() => process.exit(1));
  });
  return state;
}
