import type { RequestHandler } from 'express';
import type { RedisClient } from '../../shared/clients/redis.ts';
import { ApiError } from '../../shared/contract/errors.ts';
import type { Logger } from '../../shared/logger.ts';
import { API_KEY_PATTERN, keyDigest } from '../../shared/orgs/keys.ts';
import { KEYS_REVOKED_CHANNEL, ORGS_CHANGED_CHANNEL } from '../../shared/orgs/keyspace.ts';
import type { Org, OrgStore } from '../../shared/orgs/store.ts';

export interface Principal {
  org: Org;
  keyId: string;
}

export interface AuthenticatorOptions {
  /** A known key older than this is re-read from Redis in the background (backstop to pub/sub). */
  freshMs: number;
  /** An unknown key is answered from the cache this long before Redis is asked again. */
  negativeMs: number;
  /** Most unknown keys remembered; guessed keys must not grow memory without bound. */
  maxNegative: number;
  /** Told of every authenticated request (the Keys page's "last used"); must do no I/O. */
  onUse: (principal: Principal) => void;
}

const DEFAULTS: AuthenticatorOptions = {
  freshMs: 10_000,
  negativeMs: 1_000,
  maxNegative: 10_000,
  onUse: () => {},
};

const unauthenticated = (message: string) =>
  new ApiError(401, { code: 'E_UNAUTHENTICATED', message }, { 'WWW-Authenticate': 'Bearer' });

interface Known {
  principal: Principal;
  /** When the entry is next re-read from Redis. */
  checkAt: number;
  /** A rolled key's end (epoch ms): refused from then on without asking Redis. */
  expiresAt: number | undefined;
}

/**
 * A revoked key's digest is remembered this long: a lookup already in flight when the revocation
 * arrived (it read the key as active just before) must not put the key back in the cache.
 */
const TOMBSTONE_MS = 60_000;

/** After a failed re-read (Redis down), wait this long before trying that key again. */
const RECHECK_AFTER_FAILURE_MS = 1_000;

/**
 * Resolves bearer keys to their organisation from an in-process replica of the active keys.
 *
 * - At boot (and whenever the pub/sub connection comes back) every active key is loaded, so a
 *   known key never waits for Redis and, while Redis is down, a key missing from the replica is
 *   one that did not exist when Redis was last reachable: keys are only created in Redis, so
 *   none can appear during an outage and answering 401 for it is correct.
 * - A revocation or organisation change is published by the admin store; every node drops or
 *   re-reads the entry on the message, well within a second.
 * - A known key older than `freshMs` is served and re-read in the background: the backstop if a
 *   pub/sub message is lost while the connection stays up.
 * - Redis unreachable: known keys keep working from the replica; unknown keys get 401.
 * - A rolled key carries its end (`expires_at`) in the replica and is refused from then on; the
 *   revocation published at that time (by the portal) removes it everywhere as well.
 */
export class Authenticator {
  private readonly store: OrgStore;
  private readonly replicaStore: OrgStore;
  private readonly log: Logger;
  private readonly opts: AuthenticatorOptions;
  private readonly known = new Map<string, Known>();
  private readonly unknown = new Map<string, number>();
  private readonly refreshing = new Set<string>();
  /** Revoked digests and when the revocation arrived, oldest first (see TOMBSTONE_MS). */
  private readonly tombstones = new Map<string, number>();
  private loaded = false;
  private following = false;

  /**
   * `store` serves reads on the request path and should fail fast; `replicaStore` loads the whole
   * replica off the request path and may wait for Redis (a slow SCAN must not time out).
   */
  constructor(
    stores: { store: OrgStore; replicaStore: OrgStore },
    log: Logger,
    opts: Partial<AuthenticatorOptions> = {},
  ) {
    this.store = stores.store;
    this.replicaStore = stores.replicaStore;
    this.log = log;
    this.opts = { ...DEFAULTS, ...opts };
  }

  /** True once the replica of active keys has been loaded; the node is not ready before. */
  get ready(): boolean {
    return this.loaded;
  }

  /** Replaces the replica with every active key now in Redis. */
  async load(): Promise<void> {
    const all = await this.replicaStore.activeKeys();
    const now = Date.now();
    this.known.clear();
    this.unknown.clear();
    for (const r of all)
      if (!this.revoked(r.digest))
        this.known.set(r.digest, {
          principal: { org: r.org, keyId: r.key.key_id },
          checkAt: now + this.opts.freshMs,
          expiresAt: r.key.expires_at,
        });
    this.loaded = true;
    this.log.info({ keys: all.length }, 'api key replica loaded');
  }

  /**
   * Follows revocations and organisation changes on `subscriber` (a dedicated connection), and
   * reloads the whole replica each time that connection is re-established, since messages sent
   * while it was down are lost. Safe to call again after a failed subscribe.
   */
  async follow(subscriber: RedisClient): Promise<void> {
    if (!this.following) {
      this.following = true;
      subscriber.on('message', (channel: string, message: string) => {
        if (channel === KEYS_REVOKED_CHANNEL) {
          this.bury(message);
          this.known.delete(message);
          this.unknown.delete(message);
        } else if (channel === ORGS_CHANGED_CHANNEL) {
          for (const [digest, k] of this.known)
            if (k.principal.org.org_id === message) void this.refresh(digest);
        }
      });
      const reload = () => {
        if (!this.loaded) return; // the first load is the caller's
        this.load().catch((err: unknown) =>
          this.log.warn({ err }, 'api key replica reload failed; serving the previous one'),
        );
      };
      subscriber.on('ready', reload);
      // A cluster client's 'ready' is the whole cluster's: when the node its subscription sits on
      // leaves, ioredis moves the subscription to another node without one, and what was
      // published in between is lost. A node leaving is the signal to reload there.
      if ('nodes' in subscriber) subscriber.on('-node', reload);
    }
    await subscriber.subscribe(KEYS_REVOKED_CHANNEL, ORGS_CHANGED_CHANNEL);
  }

  async resolve(apiKey: string): Promise<Principal | null> {
    const digest = keyDigest(apiKey);
    const now = Date.now();
    const hit = this.known.get(digest);
    if (hit) {
      if (hit.expiresAt !== undefined && now >= hit.expiresAt) {
        // A rolled key's overlap is over: refused here, whatever Redis or pub/sub say.
        this.known.delete(digest);
        return null;
      }
      if (now >= hit.checkAt) void this.refresh(digest);
      return hit.principal;
    }
    const missAt = this.unknown.get(digest);
    if (missAt !== undefined && now - missAt < this.opts.negativeMs) return null;
    try {
      return await this.read(digest);
    } catch {
      // Redis unreachable: the replica held every key that existed when it was last reachable.
      return null;
    }
  }

  private async read(digest: string): Promise<Principal | null> {
    const found = await this.store.resolveDigest(digest);
    if (!found || this.revoked(digest)) {
      this.known.delete(digest);
      if (this.unknown.size >= this.opts.maxNegative) this.unknown.clear();
      this.unknown.set(digest, Date.now());
      return null;
    }
    const principal = { org: found.org, keyId: found.key.key_id };
    this.unknown.delete(digest);
    this.known.set(digest, {
      principal,
      checkAt: Date.now() + this.opts.freshMs,
      expiresAt: found.key.expires_at,
    });
    return principal;
  }

  private bury(digest: string): void {
    const now = Date.now();
    this.tombstones.delete(digest);
    this.tombstones.set(digest, now);
    for (const [d, at] of this.tombstones) {
      if (now - at < TOMBSTONE_MS) break;
      this.tombstones.delete(d);
    }
  }

  /** True while a revocation of this digest is recent enough that a racing read may be stale. */
  private revoked(digest: string): boolean {
    const at = this.tombstones.get(digest);
    return at !== undefined && Date.now() - at < TOMBSTONE_MS;
  }

  /** Re-reads one key off the request path; on failure the entry is kept (Redis may be down). */
  private async refresh(digest: string): Promise<void> {
    if (this.refreshing.has(digest)) return;
    this.refreshing.add(digest);
    try {
      await this.read(digest);
    } catch {
      // Keep serving the entry we have (Redis may be down) and try again a little later.
      const k = this.known.get(digest);
      if (k) k.checkAt = Date.now() + RECHECK_AFTER_FAILURE_MS;
    } finally {
      this.refreshing.delete(digest);
    }
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
        this.opts.onUse(principal);
        res.locals.principal = principal;
        next();
      }, next);
    };
  }
}
