import type { RedisClient } from '../../shared/clients/redis.ts';
import { signinAttemptsKey } from '../../shared/portal/keyspace.ts';
import { sha256Hex } from '../../shared/sha256.ts';

export interface SigninLimitOptions {
  maxPerEmail: number;
  maxPerIp: number;
  windowS: number;
}

/**
 * Takes one slot of a counter if it is below the limit; 1 if taken, 0 if the limit is reached.
 * Checking and counting in one script is what makes the limit hold under parallel attempts: a
 * check followed by a separate count lets every attempt in flight pass the check. One key per
 * call, so it runs on Redis Cluster; the two counters of an attempt are taken one after the other.
 */
const TAKE = `
if tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[1]) then return 0 end
redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[2], 'NX')
return 1`;

/** Gives a slot back; never below zero, never creates the key (which would have no expiry). */
const GIVE_BACK = `
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

type ScriptedRedis = RedisClient & {
  frsSigninTake(key: string, max: number, ttlS: number): Promise<number>;
  frsSigninGiveBack(key: string): Promise<number>;
};

/** What `take` answers: a slot to hand back if the password is right, or how long to wait. */
export type SigninSlot = { ok: true; succeeded: () => Promise<void> } | { ok: false; retryAfterS: number };

/**
 * Sign-in attempts limited per email and per client address in fixed windows. An attempt takes a
 * slot of both counters before its password is checked (a failed attempt keeps them, a successful
 * one gives them back), so at most `maxPerEmail` attempts on one account and `maxPerIp` from one
 * address are ever checked and failed in one window, however many arrive at once. Once either
 * counter is full, sign-in is refused without checking the password until the window ends:
 * guessing one account's password and spraying many accounts from one address are both bounded.
 */
export class SigninLimit {
  private readonly redis: ScriptedRedis;
  private readonly opts: SigninLimitOptions;

  constructor(redis: RedisClient, opts: SigninLimitOptions) {
    redis.defineCommand('frsSigninTake', { lua: TAKE, numberOfKeys: 1 });
    redis.defineCommand('frsSigninGiveBack', { lua: GIVE_BACK, numberOfKeys: 1 });
    this.redis = redis as ScriptedRedis;
    this.opts = opts;
  }

  /**
   * Counters of the window of `now`. The email and the address appear only as digests: Redis
   * holds no address in clear. Each counter lives two windows, past the end of its own.
   */
  private counters(email: string, ip: string, now: number) {
    const window = Math.floor(now / 1000 / this.opts.windowS);
    return [
      {
        key: signinAttemptsKey('email', sha256Hex(email.trim().toLowerCase()), window),
        max: this.opts.maxPerEmail,
      },
      { key: signinAttemptsKey('ip', sha256Hex(ip), window), max: this.opts.maxPerIp },
    ];
  }

  /** Takes this attempt's slots, before the password is checked. */
  async take(email: string, ip: string, now = Date.now()): Promise<SigninSlot> {
    const counters = this.counters(email, ip, now);
    const ttlS = this.opts.windowS * 2;
    const taken = await Promise.all(counters.map((c) => this.redis.frsSigninTake(c.key, c.max, ttlS)));
    const giveBack = () =>
      Promise.all(counters.filter((_, i) => taken[i] === 1).map((c) => this.redis.frsSigninGiveBack(c.key)));
    if (taken.every((t) => t === 1)) return { ok: true, succeeded: async () => void (await giveBack()) };
    // Refused: a slot taken of the other counter is not an attempt either.
    await giveBack();
    const windowMs = this.opts.windowS * 1000;
    return { ok: false, retryAfterS: Math.max(1, Math.ceil((windowMs - (now % windowMs)) / 1000)) };
  }
}
