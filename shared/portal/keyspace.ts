/**
 * Every Redis key of the portal, in one place. Secrets (setup tokens, session ids) appear only as
 * SHA-256 digests, so a copy of Redis opens no account and no session.
 */
export const userKey = (userId: string) => `frs:portal:user:${userId}`;
export const userByEmailKey = (email: string) => `frs:portal:email:${email}`;
export const setupTokenKey = (tokenDigest: string) => `frs:portal:setup:${tokenDigest}`;
export const sessionKey = (sidDigest: string) => `frs:portal:session:${sidDigest}`;
/** Failed sign-ins in one window, by email digest or by client address. */
export const signinFailuresKey = (kind: 'email' | 'ip', who: string, window: number) =>
  `frs:portal:signin:${kind}:${who}:${window}`;
/** The latest scores of an organisation (JSON summaries, newest pushed first, bounded). */
export const recentScoresKey = (orgId: string) => `frs:portal:recent:${orgId}`;
/** Scores and band mix of an organisation on one UTC day (`YYYY-MM-DD`). */
export const dailyUsageKey = (orgId: string, day: string) => `frs:portal:usage:${orgId}:${day}`;
