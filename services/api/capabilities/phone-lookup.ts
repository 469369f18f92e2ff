/**
 * The live phone lookup on the request path (shared/capabilities/phone-live-lookup): the one
 * outbound call a score may make, for organisations that opted in, within the caller's budget.
 *
 * - Shared cache first: each field of the number under its keyed digest in Redis, with its own
 *   time to live (cache.ts); a number all of whose fields are cached costs nothing.
 * - One flight per number on this node: concurrent requests for a number already being looked up
 *   wait for that lookup instead of starting another (and only its starter's cap is charged).
 * - The organisation's monthly cap, counted in Redis before the provider is asked; unknown (Redis
 *   down) counts as reached: a lookup is money, and an outage must not spend it unbounded.
 * - Behind an opossum breaker, with a hard ceiling per call (PHONE_LOOKUP_TIMEOUT_MS).
 * - A request waits at most min(options.max_latency_ms, the ceiling); past that, or on any
 *   failure, the answer is `unavailable` (the component degraded, the score from prefix evidence)
 *   while a lookup still under way goes on and fills the cache for the next request.
 * - Every answer says what the lookup did for that request (`outcome`): the score's audit record
 *   keeps it with the provider, and ClickHouse counts it per organisation (migration 013).
 *
 * It never rejects.
 */
import CircuitBreaker from 'opossum';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { RedisClient } from '../../../shared/clients/redis.ts';
import {
  encodeFields,
  decodeFields,
  FIELD_TTL_S,
  fieldKey,
  usedKey,
} from '../../../shared/capabilities/phone-live-lookup/cache.ts';
import {
  FIELD_PROPERTY,
  type LookupField,
  type LookupFields,
  type LookupOutcome,
  type PhoneLookupProvider,
} from '../../../shared/capabilities/phone-live-lookup/result.ts';
import type { SubjectKeys } from '../../../shared/capabilities/subject-key.ts';
import type { BreakerState } from '../../../shared/capabilities/model.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { ProviderClient } from './phone-provider.ts';
import { phoneLiveLookup } from '../../../shared/capabilities/phone-live-lookup/index.ts';

export interface PhoneLookupDeps {
  /** The hot path's fail-fast connection. */
  redis: RedisClient;
  prefix: string;
  subjectKeys: SubjectKeys;
  provider: ProviderClient;
  /** Hard ceiling of one provider call and of any request's wait. */
  ceilingMs: number;
  resetMs: number;
  registers: Registry[];
  log: Logger;
}

/**
 * What one request gets: the fields, or none within its budget; either way what the lookup did
 * for it (`outcome`, result.ts), which its audit record keeps.
 */
export type PhoneLookupOutcome =
  | { state: 'answered'; fields: LookupFields; outcome: LookupOutcome }
  | { state: 'unavailable'; outcome: LookupOutcome };

/** A provider answer the breaker counts as a failure (429, 5xx, refused credentials...). */
export class ProviderFailure extends Error {
  override name = 'ProviderFailure';
  readonly retry: boolean;
  constructor(code: string, retry: boolean) {
    super(`provider failed: ${code}`);
    this.retry = retry;
  }
}

/** Counted into the month's key, which outlives the month by a few days for the portal. */
const USED_TTL_S = 40 * 86_400;

/** One Lua script: count a lookup unless the month's count is at the cap already. */
const TAKE_LOOKUP = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
if n > tonumber(ARGV[1]) then redis.call('DECR', KEYS[1]) return 0 end
return n`;

export class PhoneLookup {
  readonly breaker: CircuitBreaker<[string, readonly LookupField[]], LookupFields>;
  private readonly deps: PhoneLookupDeps;
  private readonly inFlight = new Map<string, Promise<PhoneLookupOutcome>>();
  private readonly metrics: ReturnType<typeof lookupMetrics>;

  constructor(deps: PhoneLookupDeps) {
    this.deps = deps;
    this.breaker = new CircuitBreaker(
      (e164: string, fields: readonly LookupField[]) => this.ask(e164, fields),
      {
        name: phoneLiveLookup.key,
        timeout: deps.ceilingMs,
        resetTimeout: deps.resetMs,
        // Open after half of at least 5 lookups in the last 10 s failed: a provider outage costs
        // at most a handful of ceilings before requests stop waiting for it.
        errorThresholdPercentage: 50,
        volumeThreshold: 5,
        rollingCountTimeout: 10_000,
        rollingCountBuckets: 10,
        rollingPercentilesEnabled: false,
        enableSnapshots: false,
      },
    );
    this.metrics = lookupMetrics(deps.registers, deps.provider.name, () => this.state);
  }

  get provider(): PhoneLookupProvider {
    return this.deps.provider.name;
  }

  get state(): BreakerState {
    return this.breaker.opened ? 'open' : this.breaker.halfOpen ? 'half_open' : 'closed';
  }

  /** Looks `e164` up for organisation `orgId` (cap: its monthly lookups), waiting at most `budgetMs`. */
  lookup(e164: string, orgId: string, cap: number, budgetMs: number): Promise<PhoneLookupOutcome> {
    const digest = this.deps.subjectKeys.key(`phone:${e164}`);
    const joined = this.inFlight.get(digest);
    const flight = joined ?? this.start(digest, e164, orgId, cap);
    const answer = within(flight, Math.min(budgetMs, this.deps.ceilingMs));
    // A request that joined another's lookup paid nothing, whatever that lookup did.
    return joined ? answer.then((a) => ({ ...a, outcome: 'joined' })) : answer;
  }

  private start(digest: string, e164: string, orgId: string, cap: number): Promise<PhoneLookupOutcome> {
    const flight = this.fly(digest, e164, orgId, cap).finally(() => this.inFlight.delete(digest));
    this.inFlight.set(digest, flight);
    return flight;
  }

  shutdown(): void {
    this.breaker.shutdown();
  }

  private async fly(digest: string, e164: string, orgId: string, cap: number): Promise<PhoneLookupOutcome> {
    const cached = await this.readCache(digest);
    if (cached === undefined) return this.refused(orgId, 'redis');
    const missing = this.deps.provider.fields.filter((f) => cached[FIELD_PROPERTY[f]] === undefined);
    this.metrics.cache.inc({ result: missing.length === 0 ? 'hit' : 'miss' });
    if (missing.length === 0) return { state: 'answered', fields: cached, outcome: 'cache_hit' };
    // Asking first skips the cap's round trip and opossum's rejection while the provider is down.
    if (this.breaker.opened) return this.refused(orgId, 'breaker');
    const month = usedKey(this.deps.prefix, orgId, Date.now());
    const taken = await this.takeLookup(month, cap);
    if (taken !== true) return this.refused(orgId, taken);
    return this.call({ digest, e164, orgId, month, missing, cached });
  }

  /** One billed lookup of the fields the cache lacks, counted against the month (`month`) already. */
  private async call(c: {
    digest: string;
    e164: string;
    orgId: string;
    month: string;
    missing: readonly LookupField[];
    cached: LookupFields;
  }): Promise<PhoneLookupOutcome> {
    const provider = this.deps.provider.name;
    try {
      const fields = await this.breaker.fire(c.e164, c.missing);
      const outcome = c.missing.every((f) => fields[FIELD_PROPERTY[f]] === null) ? 'no_data' : 'answered';
      this.metrics.lookups.inc({ org: c.orgId, provider, outcome });
      this.writeCache(c.digest, fields);
      return { state: 'answered', fields: { ...c.cached, ...fields }, outcome };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'EOPENBREAKER') {
        // Half open, its one trial lookup under way: nothing was asked, so nothing is owed.
        this.deps.redis.decr(c.month).catch(() => undefined);
        return this.refused(c.orgId, 'breaker');
      }
      const outcome = code === 'ETIMEDOUT' ? 'timeout' : 'failed';
      this.metrics.lookups.inc({ org: c.orgId, provider, outcome });
      if (outcome === 'failed') this.deps.log.warn({ err, provider }, 'phone lookup failed');
      return { state: 'unavailable', outcome };
    }
  }

  /** The provider's answer; a failure it reports is thrown, so the breaker counts it. */
  private async ask(e164: string, fields: readonly LookupField[]): Promise<LookupFields> {
    const answer = await this.deps.provider.ask(e164, fields, this.deps.ceilingMs);
    if (answer.kind === 'failed') throw new ProviderFailure(answer.code, answer.retry);
    return answer.fields;
  }

  private refused(orgId: string, reason: 'cap' | 'breaker' | 'redis'): PhoneLookupOutcome {
    this.metrics.refused.inc({ org: orgId, reason });
    return { state: 'unavailable', outcome: reason };
  }

  /** The cached fields of the number (empty when none); undefined when Redis did not answer. */
  private async readCache(digest: string): Promise<LookupFields | undefined> {
    const { redis, prefix, provider } = this.deps;
    const pipeline = redis.pipeline();
    for (const f of provider.fields) pipeline.hget(fieldKey(prefix, digest, f), 'v');
    try {
      const replies = (await pipeline.exec()) ?? [];
      if (replies.some(([err]) => err)) return undefined;
      return decodeFields(provider.fields.map((f, i) => [f, replies[i]![1] as string | null]));
    } catch {
      return undefined;
    }
  }

  /** One lookup counted into the month's key, or why not: the cap reached, or Redis did not answer. */
  private async takeLookup(month: string, cap: number): Promise<true | 'cap' | 'redis'> {
    try {
      const n = await this.deps.redis.eval(TAKE_LOOKUP, 1, month, cap, USED_TTL_S);
      return Number(n) > 0 ? true : 'cap';
    } catch {
      return 'redis';
    }
  }

  /** Each answered field under its own time to live; a failed write only costs a later lookup. */
  private writeCache(digest: string, fields: LookupFields): void {
    const { redis, prefix } = this.deps;
    const pipeline = redis.pipeline();
    for (const [field, value] of encodeFields(fields)) {
      const key = fieldKey(prefix, digest, field);
      pipeline.hset(key, 'v', value).expire(key, FIELD_TTL_S[field]);
    }
    pipeline.exec().catch((err: unknown) => this.deps.log.warn({ err }, 'phone lookup cache write failed'));
  }
}

/** `flight`, or `unavailable` once `ms` passed; the flight itself goes on. */
function within(flight: Promise<PhoneLookupOutcome>, ms: number): Promise<PhoneLookupOutcome> {
  let timer: NodeJS.Timeout;
  const late = new Promise<PhoneLookupOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ state: 'unavailable', outcome: 'timeout' }), ms);
  });
  return Promise.race([flight, late]).finally(() => clearTimeout(timer));
}

/** Cost and cache figures in /metrics: per organisation and provider. */
function lookupMetrics(registers: Registry[], provider: string, state: () => BreakerState) {
  const value = { closed: 0, half_open: 1, open: 2 } as const;
  new Gauge({
    name: 'frs_phone_lookup_breaker_state',
    help: 'Phone-lookup breaker: 0 closed, 1 half open, 2 open',
    labelNames: ['provider'],
    registers,
    collect() {
      this.set({ provider }, value[state()]);
    },
  });
  return {
    lookups: new Counter({
      name: 'frs_phone_lookups_total',
      help: 'Provider lookups made (each one billed by the provider), by organisation, provider and outcome',
      labelNames: ['org', 'provider', 'outcome'],
      registers,
    }),
    cache: new Counter({
      name: 'frs_phone_lookup_cache_total',
      help: 'Phone-lookup cache reads: hit when every field was cached (no provider call), else miss',
      labelNames: ['result'],
      registers,
    }),
    refused: new Counter({
      name: 'frs_phone_lookup_refused_total',
      help: 'Phone lookups not made: the organisation cap reached, the breaker open, or Redis unavailable',
      labelNames: ['org', 'reason'],
      registers,
    }),
  };
}
