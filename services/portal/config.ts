import { z } from 'zod';
import { loadConfig, type Config } from '../../shared/config.ts';

const count = z.coerce.number().int().min(1);

/** The portal's own settings, on top of the shared ones (REDIS_URL, KAFKA_BROKERS, ...). */
const portalSchema = z.object({
  PORTAL_PORT: z.coerce.number().int().min(0).max(65535).default(8090),
  /** Interface the portal binds; loopback locally, 0.0.0.0 in containers. */
  PORTAL_HOST: z.string().min(1).default('127.0.0.1'),
  /** Where users reach the portal; the admin CLI builds setup links from it. */
  PORTAL_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8090'),
  /** Kafka consumer group of the Activity feed; every portal process of a deployment shares it. */
  PORTAL_GROUP: z.string().min(1).default('frs-portal'),
  /**
   * Express `trust proxy`: set it (e.g. `loopback` or a hop count) when a TLS-terminating proxy
   * is in front, so cookies are marked Secure and sign-in limits count the real client address.
   */
  PORTAL_TRUST_PROXY: z.string().default(''),
  /** Failed sign-ins allowed per email, and per client address, in one PORTAL_SIGNIN_WINDOW_S. */
  PORTAL_SIGNIN_MAX_PER_EMAIL: count.default(5),
  PORTAL_SIGNIN_MAX_PER_IP: count.default(30),
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
