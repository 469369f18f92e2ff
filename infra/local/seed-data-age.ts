/**
 * The maximum data ages the tests and the benches run with. The seed feeds in infra/feeds/ carry
 * the honest date their data was taken, and the installed data packages age too: under the
 * capabilities' own limits (a day for Tor exits) every test would see degraded sources and stale
 * lists within days of a checkout. `npm start` and a deployment never set this: their health
 * shows the data as old as it is. A test about data age sets its own limits on top.
 */
import { CAPABILITIES } from '../../shared/capabilities/registry.ts';

const TEN_YEARS_S = 10 * 365 * 24 * 3600;

/** `CAPABILITY_MAX_DATA_AGE_S` for the tests and the benches: ten years for every capability. */
export const SEED_MAX_DATA_AGE_S = CAPABILITIES.map((c) => `${c.name}=${TEN_YEARS_S}`).join(',');
