import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../clients/redis.ts';
import { z } from 'zod';
import { hashPassword, verifyPassword } from './password.ts';
import {
  legacyUserByEmailKey,
  setupTokenKey,
  USER_BY_EMAIL_PATTERN,
  userByEmailKey,
  userKey,
} from './keyspace.ts';
import { sha256Hex } from '../sha256.ts';

/** A setup link works once, for this long. */
export const SETUP_TTL_S = 24 * 3600;

export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email({ message: 'expected an email address' }));

export const PortalUser = z.object({
  user_id: z.string(),
  org_id: z.string(),
  email: z.string(),
  /** scrypt hash (password.ts); empty until the user follows the setup link. */
  password: z.string().default(''),
  created_at: z.string(),
  /**
   * Raised each time the password is set: a session remembers the value it was created under and
   * ends once it differs (services/portal/sessions.ts), so a new password signs out everyone else.
   */
  session_gen: z.coerce.number().int().nonnegative().default(0),
  /** SHA-256 of the one setup link that may still be used; issuing a new link replaces it. */
  setup_digest: z.string().default(''),
  /** An organisation's portal admin may issue setup links to the organisation's other users. */
  role: z.enum(['member', 'admin']).default('member'),
});
export type PortalUser = z.infer<typeof PortalUser>;

/**
 * Compared against when the email is unknown, so a sign-in takes as long whether or not the
 * account exists (no user enumeration by timing).
 */
let dummyHash: Promise<string> | undefined;
const dummy = () => (dummyHash ??= hashPassword(randomBytes(16).toString('hex')));

/**
 * Makes a setup link the user's only live one; answers the digest of the link it replaces (nil if
 * none), or false for an unknown user (so no half user is ever written).
 */
const REPLACE_SETUP_LINK = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local previous = redis.call('HGET', KEYS[1], 'setup_digest')
redis.call('HSET', KEYS[1], 'setup_digest', ARGV[1])
return previous or ''`;

/**
 * Sets the password if the link is still the user's live one, uses the link up, and raises the
 * session generation (every existing session ends); nil when the link was replaced meanwhile.
 * One script on the user's hash: a link issued or a password set concurrently sees all or none.
 */
const SET_PASSWORD = `
if redis.call('HGET', KEYS[1], 'setup_digest') ~= ARGV[1] then return false end
redis.call('HSET', KEYS[1], 'password', ARGV[2])
redis.call('HDEL', KEYS[1], 'setup_digest')
return redis.call('HINCRBY', KEYS[1], 'session_gen', 1)`;

type ScriptedRedis = RedisClient & {
  frsReplaceSetupLink(userKey: string, digest: string): Promise<string | null>;
  frsSetPassword(userKey: string, digest: string, hash: string): Promise<number | null>;
};

/** Portal users in Redis: one organisation each, found by email, passwords as KDF hashes only. */
export class UserStore {
  private readonly redis: ScriptedRedis;

  constructor(redis: RedisClient) {
    redis.defineCommand('frsReplaceSetupLink', { lua: REPLACE_SETUP_LINK, numberOfKeys: 1 });
    redis.defineCommand('frsSetPassword', { lua: SET_PASSWORD, numberOfKeys: 1 });
    this.redis = redis as ScriptedRedis;
  }

  /** A new user of `orgId`, and the token of their one-time setup link. */
  async create(
    orgId: string,
    email: string,
    role: PortalUser['role'] = 'member',
  ): Promise<{ user: PortalUser; setupToken: string }> {
    const user: PortalUser = {
      user_id: `usr_${randomBytes(8).toString('hex')}`,
      org_id: orgId,
      email: Email.parse(email),
      password: '',
      created_at: new Date().toISOString(),
      session_gen: 0,
      setup_digest: '',
      role,
    };
    const legacy = await this.redis.exists(legacyUserByEmailKey(user.email));
    const claimed = legacy ? null : await this.redis.set(userByEmailKey(user.email), user.user_id, 'NX');
    if (claimed !== 'OK') throw new Error(`a portal user with email ${user.email} already exists`);
    await this.redis.hset(userKey(user.user_id), user);
    return { user, setupToken: await this.issueSetupToken(user.user_id) };
  }

  /**
   * A fresh one-time setup link for an existing user (lost link, forgotten password). It is the
   * user's only live link: every link issued before it stops working. The token is stored under
   * its digest with the user's id (expiring), and the user keeps the digest of the live one.
   */
  async issueSetupToken(userId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const digest = sha256Hex(token);
    const previous = await this.redis.frsReplaceSetupLink(userKey(userId), digest);
    if (previous === null) throw new Error(`unknown portal user ${userId}`);
    await this.redis.set(setupTokenKey(digest), userId, 'EX', SETUP_TTL_S);
    // Already useless (not the live link); deleted so it does not linger until it expires.
    if (previous) await this.redis.del(setupTokenKey(previous));
    return token;
  }

  async byEmail(email: string): Promise<PortalUser | null> {
    const parsed = Email.safeParse(email);
    if (!parsed.success) return null;
    const id =
      (await this.redis.get(userByEmailKey(parsed.data))) ??
      (await this.redis.get(legacyUserByEmailKey(parsed.data)));
    return id ? this.byId(id) : null;
  }

  /**
   * Renames every user-by-email key still named by its address in clear to its digest's name
   * (`admin user migrate-emails`; `npm start` runs it). Idempotent; returns how many it renamed.
   */
  async migrateEmailKeys(): Promise<number> {
    let moved = 0;
    let cursor = '0';
    do {
      const [next, names] = await this.redis.scan(cursor, 'MATCH', USER_BY_EMAIL_PATTERN, 'COUNT', 1000);
      cursor = next;
      for (const name of names) {
        const email = name.slice(USER_BY_EMAIL_PATTERN.length - 1);
        if (/^[0-9a-f]{64}$/.test(email)) continue;
        const id = await this.redis.get(name);
        if (id !== null) await this.redis.set(userByEmailKey(email), id, 'NX');
        await this.redis.del(name);
        moved++;
      }
    } while (cursor !== '0');
    return moved;
  }

  async byId(userId: string): Promise<PortalUser | null> {
    const h = await this.redis.hgetall(userKey(userId));
    return Object.keys(h).length === 0 ? null : PortalUser.parse(h);
  }

  /**
   * The user a setup token belongs to if it is their live link, without using it up (the form is
   * shown first).
   */
  async peekSetupToken(token: string): Promise<PortalUser | null> {
    const digest = sha256Hex(token);
    const id = await this.redis.get(setupTokenKey(digest));
    const user = id ? await this.byId(id) : null;
    return user && user.setup_digest === digest ? user : null;
  }

  /**
   * Uses the token up (GETDEL: one use even if two submissions race) and, if it is still the
   * user's live link, sets the password: every other setup link and every session of the user
   * end with it. The user as now stored, or null when the link was not valid.
   */
  async completeSetup(token: string, password: string): Promise<PortalUser | null> {
    const digest = sha256Hex(token);
    const id = await this.redis.getdel(setupTokenKey(digest));
    if (!id) return null;
    const hash = await hashPassword(password);
    if ((await this.redis.frsSetPassword(userKey(id), digest, hash)) === null) return null;
    return this.byId(id);
  }

  /** The user if the email and password match; as slow for unknown emails as for known ones. */
  async verify(email: string, password: string): Promise<PortalUser | null> {
    const user = await this.byEmail(email);
    const ok = await verifyPassword(password, user?.password || (await dummy()));
    return user && user.password && ok ? user : null;
  }
}
