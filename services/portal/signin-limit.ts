import ipaddr from 'ipaddr.js';
import type { RedisClient } from '../../shared/clients/redis.ts';
import { signinAttemptsKey } from '../../shared/portal/keyspace.ts';
import { sha256Hex } from '../../shared/sha256.ts';

export interface SigninLimitOptions {
  /** Attempts checked on one account, from every address, before the account counts as attacked. */
  maxPerEmail: number;
  /** Attempts checked from one address (an IPv6 address's /64), whatever the account. */
  maxPerIp: number;
  /** Attempts checked on one account from one address (/64). */
  maxPerIpEmail: number;
  windowS: number;
  /** Called once per account and window when its limit trips; `account` is a digest, never the email. */
  onAccountTripped?: (account: string) => void;
}

/**
 * Takes one slot of a counter if it is below the limit: the count with this slot, or 0 if the
 * limit is reached. Checking and counting in one script is what makes the limit hold under
 * parallel attempts: a check followed by a separate count lets every attempt in flight pass the
 * check. One key per call, so it runs on Redis Cluster; an attempt's counters are taken apart.
 */
const TAKE = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then return 0 end
redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[2], 'NX')
return n + 1`;

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
 * The address an attempt is counted under: an IPv4 address as it is, an IPv6 address by its /64
 * (one customer's network: a host picks any address in it), an IPv4-mapped address as IPv4.
 */
export function signinAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const addr = ipaddr.process(ip);
  if (addr.kind() === 'ipv4') return addr.toString();
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}

/**
 * Sign-in attempts limited in fixed windows by three counters, each taken before the password is
 * checked (a failed attempt keeps its slots, a successful one gives them back), so parallel
 * attempts are counted as strictly as sequential ones:
 * - per address (/64 for IPv6), `maxPerIp`: one address spraying many accounts;
 * - per address and account, `maxPerIpEmail`: one address guessing one account;
 * - per account, `maxPerEmail`, from every address: many addresses guessing one account. Past it
 *   the account is not locked (that would let anyone who knows an email lock its owner out): an
 *   attempt is still checked when its address has nothing counted in the window, and refused
 *   otherwise. Each address then gets one guess per window, and the owner signing in from an
 *   address with no recent failures gets in. The trip is reported once per account and window.
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
   * holds neither in clear. Each counter lives two windows, past the end of its own.
   */
  private counters(email: string, ip: string, now: number) {
    const window = Math.floor(now / 1000 / this.opts.windowS);
    const account = sha256Hex(email.trim().toLowerCase());
    const address = sha256Hex(signinAddress(ip));
    return {
      account,
      window,
      ip: { key: signinAttemptsKey('ip', address, window), max: this.opts.maxPerIp },
      pair: {
        key: signinAttemptsKey('ip-email', sha256Hex(`${address}\n${account}`), window),
        max: this.opts.maxPerIpEmail,
      },
      // Counted without a cap: past maxPerEmail the account is under attack, not closed.
      email: { key: signinAttemptsKey('email', account, window), max: Number.MAX_SAFE_INTEGER },
    };
  }

  /** Takes this attempt's slots, before the password is checked. */
  async take(email: string, ip: string, now = Date.now()): Promise<SigninSlot> {
    const c = this.counters(email, ip, now);
    const ttlS = this.opts.windowS * 2;
    const take = (k: { key: string; max: number }) => this.redis.frsSigninTake(k.key, k.max, ttlS);
    const held: { key: string }[] = [];
    const giveBack = () => Promise.all(held.map((k) => this.redis.frsSigninGiveBack(k.key)));
    // The address's counters first; the account's only for an attempt they let through, so a
    // burst refused at one address never counts as many addresses guessing the account.
    const [fromIp, fromPair] = await Promise.all([take(c.ip), take(c.pair)]);
    if (fromIp > 0) held.push(c.ip);
    if (fromPair > 0) held.push(c.pair);
    let ok = fromIp > 0 && fromPair > 0;
    if (ok) {
      const onAccount = await take(c.email);
      held.push(c.email);
      if (onAccount > this.opts.maxPerEmail) {
        await this.tripped(c.account, c.window, ttlS);
        // Only an address with nothing else counted in this window: one guess per address.
        ok = fromIp === 1;
      }
    }
    if (ok) return { ok: true, succeeded: async () => void (await giveBack()) };
    // Refused: the slots it took are not an attempt either.
    await giveBack();
    const windowMs = this.opts.windowS * 1000;
    return { ok: false, retryAfterS: Math.max(1, Math.ceil((windowMs - (now % windowMs)) / 1000)) };
  }

  /** Reports an account's tripped limit once per window, however many attempts see it tripped. */
  private async tripped(account: string, window: number, ttlS: number): Promise<void> {
    const first = await this.redis.set(signinAttemptsKey('tripped', account, window), '1', 'EX', ttlS, 'NX');
    if (first === 'OK') this.opts.onAccountTripped?.(account.slice(0, 16));
  }
}
