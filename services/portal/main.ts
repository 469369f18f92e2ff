/** Entry point of the portal: its own settings checked first, then `createPortal` does the rest. */
import { runService } from '../../shared/run-service.ts';
import { loadPortalConfig, type PortalConfig } from '../../shared/portal/config.ts';
import { createPortal, PORTAL_STOP_DEADLINE_MS } from './portal.ts';
import { errorMessage } from '../../shared/error-message.ts';

let cfg: PortalConfig;
try {
  cfg = loadPortalConfig();
} catch (err) {
  console.error(`portal: ${errorMessage(err)}`);
  process.exit(2);
}
runService('portal', PORTAL_STOP_DEADLINE_MS, (_shared, log) => createPortal(cfg, log));
