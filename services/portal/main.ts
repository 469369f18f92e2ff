/** The portal process: configuration, then `createPortal` (portal.ts) does the rest. */
import { createLogger } from '../../shared/logger.ts';
import { handleShutdown } from '../../shared/shutdown.ts';
import { loadPortalConfig } from './config.ts';
import { createPortal } from './portal.ts';

let cfg;
try {
  cfg = loadPortalConfig();
} catch (err) {
  console.error(`portal: ${(err as Error).message}`);
  process.exit(2);
}
const log = createLogger('portal', cfg.LOG_LEVEL);
const portal = createPortal(cfg, log);
handleShutdown(log, () => portal.stop());
await portal.start();
