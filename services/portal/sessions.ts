import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../../shared/sha256.ts';
import { parseCookie } from 'cookie';
import type { Request, Response } from 'express';
import type { RedisClient } from '../../shared/clients/redis.ts';
import { z } from 'zod';
import { sessionKey, userKey } from '../../shared/portal/keyspace.ts';
import type { PortalUser } from '../../shared/portal/users.ts';

export const SESSION_COOKIE = 'frs_session';
/** The anonymous forms (sign-in, password setup) use a double-submit token in this cookie. */
export const FORM_COOKIE = 'frs_form';
/** A session ends this long after sign-in whatever its activity. */
const ABSOLUTE_TTL_MS = 24 * 3600 * 1000;

export const Session = z.object({
  user_id: z.string(),
  org_id: z.string(),
  email: z.string(),
  /** Synchronizer token of every form of this session. */
  csrf: z.string(),
  created_at_ms: z.number(),
  /** The user's `session_gen` at sign-in; the session ends once the password is set again. */
  gen: z.number().int().nonnegative().default(0),
});
export type Session = z.infer<typeof Session>;

/** Constant-time string comparison for tokens. */
export function sameToken(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** One cookie of the request, parsed by `cookie` (the parser Express itself uses to set them). */
export function readCookie(req: Request, name: string): string | undefined {
  return parseCookie(req.get('cookie') ?? '')[name];
}

/**
 * HttpOnly and SameSite=Strict always; Secure whenever the request came over TLS (`req.secure`:
 * the socket's TLS, or `X-Forwarded-Proto: https` from a proxy PORTAL_TRUST_PROXY trusts).
 */
const cookieOptions = (req: Request) =>
  ({ httpOnly: true, sameSite: 'strict', secure: req.secure, path: '/' }) as const;

export function setCookie(req: Request, res: Response, name: string, value: string, maxAgeMs?: number): void {
  res.cookie(name, value, { ...cookieOptions(req), maxAge: maxAgeMs });
}

/** Expires the cookie with the attributes it was set with (a browser matches on them). */
export function clearCookie(req: Request, res: Response, name: string): void {
  res.clearCookie(name, cookieOptions(req));
}

/**
 * Sessions in Redis under the digest of their id (a copy of Redis opens no session). Idle ones
 * expire after `idleS`; every session ends `ABSOLUTE_TTL_MS` after sign-in.
 */
export class SessionStore {
  private readonly redis: RedisClient;
  readonly idleS: number;

  constructor(redis: RedisClient, idleS: number) {
    this.redis = redis;
    this.idleS = idleS;
  }

  async create(user: PortalUser): Promise<{ sid: string; session: Session }> {
    const sid = randomBytes(32).toString('base64url');
    const session: Session = {
      user_id: user.user_id,
      org_id: user.org_id,
      email: user.email,
      csrf: randomBytes(32).toString('base64url'),
      created_at_ms: Date.now(),
      gen: user.session_gen,
    };
    await this.redis.set(sessionKey(sha256Hex(sid)), JSON.stringify(session), 'EX', this.idleS);
    return { sid, session };
  }

  /**
   * The live session of `sid`, its idle timer restarted; null when unknown, expired, or its user
   * is gone or has set a password since it began.
   */
  async get(sid: string | undefined): Promise<Session | null> {
    if (!sid || sid.length > 100) return null;
    const key = sessionKey(sha256Hex(sid));
    const raw = await this.redis.getex(key, 'EX', this.idleS);
    if (!raw) return null;
    const session = Session.safeParse(JSON.parse(raw));
    if (!session.success || Date.now() - session.data.created_at_ms > ABSOLUTE_TTL_MS) {
      await this.redis.del(key);
      return null;
    }
    // Checked on every request, so a password set anywhere ends this session at its next request.
    const [email, gen] = await this.redis.hmget(userKey(session.data.user_id), 'email', 'session_gen');
    if (email === null || Number(gen ?? 0) !== session.data.gen) {
      await this.redis.del(key);
      return null;
    }
    return session.data;
  }

  async destroy(sid: string | undefined): Promise<void> {
    if (sid) await this.redis.del(sessionKey(sha256Hex(sid)));
  }
}
