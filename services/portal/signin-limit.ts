import { sha256Hex } from '../../shared/sha256.ts';
import type { Redis } from 'ioredis';
import { signinFailuresKey } from '../../shared/portal/keyspace.ts';

export interface SigninLimitOptions {
  maxPerEmail: number;
  maxPerIp: number;
  windowS: number;
}

/**
 * Failed sign-ins counted per email and per client address in fixed windows. Once either count
 * reaches its limit, sign-in is refused (without checking the password) until the window ends:
 * guessing one account's password and spraying many accounts from one address are both bounded.
 */
export class SigninLimit {
  private readonly redis: Redis;
  private readonly opts: SigninLimitOptions;

  constructor(redis: Redis, opts: SigninLimitOptions) {
    this.redis = redis;
    this.opts = opts;
  }

  private keys(email: string, ip: string, now: number): [string, string] {
    const window = Math.floor(now / 1000 / this.opts.windowS);
    const who = sha256Hex(email.trim().toLowerCase());
    return [signinFailuresKey('email', who, window), signinFailuresKey('ip', ip, window)];
  }

  /** Seconds until sign-in may be tried again, or 0 when it may be tried now. */
  async blockedFor(email: string, ip: string, now = Date.now()): Promise<number> {
    const [byEmail, byIp] = await this.redis.mget(...this.keys(email, ip, now));
    if (Number(byEmail ?? 0) < this.opts.maxPerEmail && Number(byIp ?? 0) < this.opts.maxPerIp) return 0;
    const windowMs = this.opts.windowS * 1000;
    return Math.max(1, Math.ceil((windowMs - (now % windowMs)) / 1000));
  }

  async failed(email: string, ip: string, now = Date.now()): Promise<void> {
    const tx = this.redis.multi();
    for (const k of this.keys(email, ip, now)) tx.incr(k).expire(k, this.opts.windowS * 2);
    await tx.exec();
  }
}
