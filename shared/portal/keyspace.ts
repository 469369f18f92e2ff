/**
 * Every Redis key of the portal, in one place. Secrets (setup tokens, session ids) appear only as
 * SHA-256 digests, so a copy of Redis opens no account and no session.
 */
import { sha256Hex } from '../sha256.ts';

export const userKey = (userId: string) => `frs:portal:user:${userId}`;
/**
 * A user's id by email, named by the SHA-256 of the normalised email (Email in users.ts): a key
 * name is visible to more than its readers (SCAN, keyspace events), so it carries no address.
 */
export const userByEmailKey = (email: string) => `frs:portal:email:${sha256Hex(email)}`;
/** The name the same key had before it was digested; read until `admin user migrate-emails` ran. */
export const legacyUserByEmailKey = (email: string) => `frs:portal:email:${email}`;
export const USER_BY_EMAIL_PATTERN = 'frs:portal:email:*';
export const setupTokenKey = (tokenDigest: string) => `frs:portal:setup:${tokenDigest}`;
export const sessionKey = (sidDigest: string) => `frs:portal:session:${sidDigest}`;
/** A session's one-time message for the page after a redirect, sealed with the session id. */
export const sessionFlashKey = (sidDigest: string) => `frs:portal:session:${sidDigest}:flash`;
/**
 * Sign-in attempts of one window being checked or failed, by digest of the email, of the client
 * address (/64 for IPv6), or of both; `tripped` marks an account whose limit tripped in the window
 * (services/portal/signin-limit.ts). Expires two windows after its first attempt.
 */
export const signinAttemptsKey = (
  kind: 'email' | 'ip' | 'ip-email' | 'tripped',
  whoDigest: string,
  window: number,
) => `frs:portal:signin:${kind}:${whoDigest}:${window}`;
/**
 * The latest scores of an organisation (JSON summaries, newest pushed first, bounded). The
 * organisation in braces is a hash tag: the audit sink writes this and the day's counts of one
 * organisation in one transaction, on one slot of a Redis Cluster (shared/portal/activity.ts).
 */
export const recentScoresKey = (orgId: string) => `frs:portal:recent:{${orgId}}`;
/**
 * How many summaries were ever pushed to that list, raised in the same transaction: a page that
 * has seen the list at count N asks for the newest (now - N) entries only.
 */
export const recentSeqKey = (orgId: string) => `frs:portal:recent:{${orgId}}:seq`;
/**
 * Marks one organisation's share of a sink batch as applied to its Activity (the digest names the
 * share's score ids), for a minute: a share sent again after a timeout is then applied once
 * (services/audit-sink/activity-batch.lua).
 */
export const activityShareKey = (orgId: string, digest: string) =>
  `frs:portal:recent:{${orgId}}:batch:${digest}`;
/** Scores and band mix of an organisation on one UTC day (`YYYY-MM-DD`). */
export const dailyUsageKey = (orgId: string, day: string) => `frs:portal:usage:{${orgId}}:${day}`;
