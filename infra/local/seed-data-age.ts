/**
 * The maximum data ages the local stack and the tests run with. The seed feeds in infra/feeds/
 * are frozen samples carrying the honest date they were assembled, and the installed data
 * packages age too: under the registry's limits (a day for Tor exits) the development stack
 * would be stale, and every test would see degraded sources, within days of a checkout. A
 * deployment never sets this; a test about data age sets its own limits on top.
 */
import { CAPABILITIES } from '../../shared/capabilities/registry.ts';

const TEN_YEARS_S = 10 * 365 * 24 * 3600;

/** `CAPABILITY_MAX_DATA_AGE_S` for the local stack and the tests: ten years for every capability. */
export const SEED_MAX_DATA_AGE_S = CAPABILITIES.map((c) => `${c.name}=${TEN_YEARS_S}`).join(',');
