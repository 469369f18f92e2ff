import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { hashPassword, verifyPassword } from './password.ts';
import { setupTokenKey, userByEmailKey, userKey } from './keyspace.ts';
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
});
export type PortalUser = z.infer<typeof PortalUser>;

/**
 * Compared against when the email is unknown, so a sign-in takes as long whether or not the
 * account exists (no user enumeration by timing).
 */
let dummyHash: Promise<string> | undefined;
const dummy = () => (dummyHash ??= hashPassword(randomBytes(16).toString('hex')));

/** Portal users in Redis: one organisation each, found by email, passwords as KDF hashes only. */
export class UserStore {
  private readonly redis: Redis;

  constructor(redis: Redis) {
    this.redis = redis;
  }

  /** A new user of `orgId`, and the token of their one-time setup link. */
  async create(orgId: string, email: string): Promise<{ user: PortalUser; setupToken: string }> {
    const user: PortalUser = {
      user_id: `usr_${randomBytes(8).toString('hex')}`,
      org_id: orgId,
      email: Email.parse(email),
      password: '',
      created_at: new Date().toISOString(),
    };
    const claimed = await this.redis.set(userByEmailKey(user.email), user.user_id, 'NX');
    if (claimed !== 'OK') throw new Error(`a portal user with email ${user.email} already exists`);
    await this.redis.hset(userKey(user.user_id), user);
    return { user, setupToken: await this.issueSetupToken(user.user_id) };
  }

  /** A fresh one-time setup link for an existing user (lost link, forgotten password). */
  async issueSetupToken(userId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.redis.set(setupTokenKey(sha256Hex(token)), userId, 'EX', SETUP_TTL_S);
    return token;
  }

  async byEmail(email: string): Promise<PortalUser | null> {
    const parsed = Email.safeParse(email);
    if (!parsed.success) return null;
    const id = await this.redis.get(userByEmailKey(parsed.data));
    return id ? this.byId(id) : null;
  }

  async byId(userId: string): Promise<PortalUser | null> {
    const h = await this.redis.hgetall(userKey(userId));
    return Object.keys(h).length === 0 ? null : PortalUser.parse(h);
  }

  /** The user a setup token belongs to, without using it up (the form is shown first). */
  async peekSetupToken(token: string): Promise<PortalUser | null> {
    const id = await this.redis.get(setupTokenKey(sha256Hex(token)));
    return id ? this.byId(id) : null;
  }

  /** Uses the token up (GETDEL: one use even if two submissions race) and sets the password. */
  async completeSetup(token: string, password: string): Promise<PortalUser | null> {
    const id = await this.redis.getdel(setupTokenKey(sha256Hex(token)));
    const user = id ? await this.byId(id) : null;
    if (!user) return null;
    const hash = await hashPassword(password);
    await this.redis.hset(userKey(user.user_id), 'password', hash);
    return { ...user, password: hash };
  }

  /** The user if the email and password match; as slow for unknown emails as for known ones. */
  async verify(email: string, password: string): Promise<PortalUser | null> {
    const user = await this.byEmail(email);
    const ok = await verifyPassword(password, user?.password || (await dummy()));
    return user && user.password && ok ? user : null;
  }
}
