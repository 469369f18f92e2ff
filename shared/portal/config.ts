import { isIP } from 'node:net';
import { z } from 'zod';
import { loadConfig, type Config } from '../config.ts';

const count = z.coerce.number().int().min(1);

/** Express's names for address ranges (proxy-addr's), usable in PORTAL_TRUST_PROXY. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** `addr`, `addr/prefix` or `addr/netmask`, as Express (proxy-addr) reads them. */
function isAddressOrRange(entry: string): boolean {
  const [addr = '', mask, ...rest] = entry.split('/');
  const family = isIP(addr);
  if (family === 0 || rest.length > 0) return false;
  if (mask === undefined) return true;
  if (/^\d{1,3}$/.test(mask)) return Number(mask) <= (family === 4 ? 32 : 128);
  return isIP(mask) === family;
}

/**
 * What Express's `trust proxy` gets: `false` (unset: trust no proxy), a hop count (the client is
 * that many proxies in front of the portal), or the proxies' addresses, ranges or range names.
 * `true` is refused: it trusts whatever `X-Forwarded-For` any client sends, so anyone could pick
 * the address the sign-in limit counts.
 */
export type TrustProxy = false | number | string[];

const trustProxy = z
  .string()
  .default('')
  .transform((raw, ctx): TrustProxy => {
    const v = raw.trim();
    if (v === '' || v === 'false') return false;
    if (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 10) return Number(v);
    const entries = v.split(',').map((e) => e.trim());
    const bad = entries.filter((e) => !RANGE_NAMES.has(e) && !isAddressOrRange(e));
    if (bad.length === 0) return entries;
    ctx.addIssue({
      code: 'custom',
      message:
        `expected a hop count (1-10) or a comma-separated list of proxy addresses, ranges ` +
        `(10.0.0.0/8) or loopback, linklocal, uniquelocal; not '${bad.join(', ')}'` +
        (v === 'true' ? ' (true would trust any client to name its own address)' : ''),
    });
    return z.NEVER;
  });

/** The portal's own settings, on top of the shared ones (REDIS_URL, KAFKA_BROKERS, ...). */
export const portalSchema = z.object({
  /** Port of the portal. */
  PORTAL_PORT: z.coerce.number().int().min(0).max(65535).default(8090),
  /** Interface the portal binds; loopback locally, 0.0.0.0 in containers. */
  PORTAL_HOST: z.string().min(1).default('127.0.0.1'),
  /** Where users reach the portal; the admin CLI builds setup links from it. */
  PORTAL_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8090'),
  /** The API's public address, as the portal's `curl` examples show it. */
  PORTAL_API_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8080'),
  /**
   * Express `trust proxy`: set it when a TLS-terminating proxy is in front, so `X-Forwarded-Proto`
   * marks cookies Secure and sign-in limits count the client's address from `X-Forwarded-For`.
   * Unset: those headers are ignored.
   */
  PORTAL_TRUST_PROXY: trustProxy,
  /**
   * Sign-in attempts checked per account in one PORTAL_SIGNIN_WINDOW_S, from every address, before
   * the account counts as attacked; then only an address with nothing else counted gets a check
   * (services/portal/signin-limit.ts, docs/security.md).
   */
  PORTAL_SIGNIN_MAX_PER_EMAIL: count.default(10),
  /** Sign-in attempts checked per client address (an IPv6 address's /64) in one PORTAL_SIGNIN_WINDOW_S; further attempts get 429 without a check. */
  PORTAL_SIGNIN_MAX_PER_IP: count.default(30),
  /** Sign-in attempts checked per client address and account in one PORTAL_SIGNIN_WINDOW_S. */
  PORTAL_SIGNIN_MAX_PER_IP_EMAIL: count.default(5),
  /** The sign-in limits' window, in seconds. */
  PORTAL_SIGNIN_WINDOW_S: count.default(900),
  /** A session ends after this long without a request. */
  PORTAL_SESSION_IDLE_S: count.default(8 * 3600),
});

export type PortalConfig = Config & z.infer<typeof portalSchema>;

export function loadPortalConfig(env: NodeJS.ProcessEnv = process.env): PortalConfig {
  const parsed = portalSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid environment:\n${lines.join('\n')}`);
  }
  return { ...loadConfig(env), ...parsed.data };
}
