import { loadConfig, type Config } from './config.ts';
import type { Service } from './lifecycle.ts';
import { createLogger, type Logger } from './logger.ts';
import { errorMessage } from './error-message.ts';

/** Margin past a service's own stop deadline before the process exits regardless. */
const HARD_EXIT_MARGIN_MS = 2_000;

/**
 * The whole of a service's `main.ts`: parse config (a bad variable exits 2 naming it), register
 * signal handlers before anything can throw, then build and start the service. SIGTERM/SIGINT
 * run `stop` once and exit 0 if it was clean, 1 otherwise; an uncaught exception or a failed
 * start logs, stops and exits 1. `stopDeadlineMs` is the service's own bound; the process exits
 * shortly after it whatever is still hanging (an unreachable Redis, Kafka or ClickHouse).
 */
export function runService(
  name: string,
  stopDeadlineMs: number,
  create: (cfg: Config, log: Logger) => Service,
): void {
  let cfg: Config;
  try {
    cfg = loadConfig();
  } catch (err) {
    console.error(`${name}: ${errorMessage(err)}`);
    process.exit(2);
  }
  const log = createLogger(name, cfg.LOG_LEVEL);
  // Filled once `create` returns; a signal or a throw before that has nothing to stop.
  const built: { service?: Service } = {};
  let stopping = false;

  const stop = (reason: string, failed: boolean): void => {
    if (stopping) return;
    stopping = true;
    log.info({ reason }, 'shutting down');
    setTimeout(() => {
      log.error({ deadlineMs: stopDeadlineMs }, 'stop deadline passed; exiting with resources still open');
      process.exit(1);
    }, stopDeadlineMs + HARD_EXIT_MARGIN_MS);
    void (built.service?.stop() ?? Promise.resolve(true)).then(
      (clean) => process.exit(failed || !clean ? 1 : 0),
      (err: unknown) => {
        log.error({ err }, 'shutdown error');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM', false));
  process.on('SIGINT', () => stop('SIGINT', false));
  process.on('uncaughtException', (err) => {
    log.fatal({ err }, 'uncaught exception');
    stop('uncaughtException', true);
  });

  built.service = create(cfg, log);
  built.service.start().then(
    () => log.info(`${name} started`),
    (err: unknown) => {
      log.fatal({ err }, 'start failed');
      stop('start failed', true);
    },
  );
}
