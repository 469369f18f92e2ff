import type { RequestHandler } from 'express';
import { ApiError } from '../../shared/contract/errors.ts';
import { API_KEY_PATTERN, keyDigest } from '../../shared/orgs/keys.ts';
import type { Org, OrgStore } from '../../shared/orgs/store.ts';

export interface Principal {
  org: Org;
  keyId: string;
}

const unauthenticated = (message: string) =>
  new ApiError(401, { code: 'E_UNAUTHENTICATED', message }, { 'WWW-Authenticate': 'Bearer' });

/**
 * Resolves bearer keys to their organisation. Entries are cached in process for `ttlMs`, so a
 * revocation reaches every node within that time without a Redis read per request.
 */
export class Authenticator {
  private readonly store: OrgStore;
  private readonly ttlMs: number;
  private readonly cache = new Map<string, { principal: Principal | null; expires: number }>();

  constructor(store: OrgStore, ttlMs = 1_000) {
    this.store = store;
    this.ttlMs = ttlMs;
  }

  async resolve(apiKey: string): Promise<Principal | null> {
    const digest = keyDigest(apiKey);
    const now = Date.now();
    const hit = this.cache.get(digest);
    if (hit && hit.expires > now) return hit.principal;
    const found = await this.store.resolveDigest(digest);
    const principal = found ? { org: found.org, keyId: found.key.key_id } : null;
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(digest, { principal, expires: now + this.ttlMs });
    return principal;
  }

  middleware(): RequestHandler {
    return (req, res, next) => {
      const header = req.get('authorization') ?? '';
      const match = /^Bearer ([^\s]+)$/i.exec(header);
      if (!match) return next(unauthenticated('missing bearer API key'));
      const key = match[1]!;
      if (!API_KEY_PATTERN.test(key)) return next(unauthenticated('malformed API key'));
      this.resolve(key).then((principal) => {
        if (!principal) return next(unauthenticated('unknown or revoked API key'));
        res.locals.principal = principal;
        next();
      }, next);
    };
  }
}
