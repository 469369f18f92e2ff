/**
 * Every Redis key of the portal, in one place. Secrets (setup tokens, session ids) appear only as
 * SHA-256 digests, so a copy of Redis opens no account and no session.
 */
export const userKey = (userId: string) => `frs:portal:user:${userId}`;
export const userByEmailKey = (email: string) => `frs:portal:email:${email}`;
export const setupTokenKey = (tokenDigest: string) => `frs:portal:setup:${tokenDigest}`;
export const sessionKey = (sidDigest: string) => `frs:portal:session:${sidDigest}`;
/** A session's one-time message for the page after a redirect, sealed with the session id. */
export const sessionFlashKey = (sidDigest: string) => `frs:portal:session:${sidDigest}:flash`;
/**
 * Sign-in attempts of one window being checked or failed, by digest of the email or of the client
 * address (services/portal/signin-limit.ts). Expires two windows after its first attempt.
 */
export const signinAttemptsKey = (kind: 'email' | 'ip', whoDigest: string, window: number) =>
  `frs:portal:signin:${kind}:${whoDigest}:${window}`;
/**
 * The latest scores of an organisation (JSON summaries, newest pushed first, bounded). The
 * organisation in braces is a hash tag: the Activity feed writes this and the day's counts of
 * one organisation in one transaction, on one slot of a Redis Cluster.
 */
export const recentScoresKey = (orgId: string) => `frs:portal:recent:{${orgId}}`;
/** Scores and band mix of an organisation on one UTC day (`YYYY-MM-DD`). */
export const dailyUsageKey = (orgId: string, day: string) => `frs:portal:usage:{${orgId}}:${day}`;
