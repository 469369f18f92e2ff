/**
 * The live reputation-ledger lookup: one round trip to the ledger Redis per scored request (an
 * HMGET of the consortium feed's current version and one of the counts organisations reported
 * through POST /v1/outcomes), behind an opossum breaker named for the capability. It is sent
 * before the controls script and runs concurrently with it, on a fail-fast connection: the
 * controls' own when the ledger lives on the same Redis (one write carries both), a connection of
 * its own when LEDGER_REDIS_URL names another server. Anything that goes wrong (timeout, open
 * breaker, Redis down) answers `unavailable`, never an error.
 */
import CircuitBreaker from 'opossum';
import { ReplyError, type Redis } from 'ioredis';
import { canonicalSubject, subjectDigest } from '../../../shared/capabilities/feeds/reputation-feed.ts';
import type { BreakerState } from '../../../shared/capabilities/model.ts';
import type { Subject } from '../../../shared/contract/request.ts';
import type { Reputation } from '../../../shared/scoring/evidence.ts';

export interface LedgerLookupDeps {
  redis: Redis;
  /** The hash key of a ledger version. */
  key: (version: string) => string;
  /** The hash of reports learned from outcomes (see ledger-reports.ts). */
  reportsKey: string;
  /** The version to read, as the snapshot cache last learned it. */
  version: () => string | undefined;
  timeoutMs: number;
  resetMs: number;
}

type Counts = (string | null)[];
const sum = (values: Counts) => values.reduce((n: number, v) => n + (v === null ? 0 : Number(v) || 0), 0);

class BudgetExceeded extends Error {
  override name = 'BudgetExceeded';
}

export class LedgerLookup {
  readonly breaker: CircuitBreaker<[string, string[], number], { feed: Counts; outcomes: Counts }>;
  private readonly deps: LedgerLookupDeps;

  constructor(deps: LedgerLookupDeps) {
    this.deps = deps;
    this.breaker = new CircuitBreaker(
      (key: string, fields: string[], budgetMs: number) => this.read(key, fields, budgetMs),
      {
        name: 'reputation_ledger',
        // Inside the request budget; opossum's default is 10 s.
        timeout: deps.timeoutMs,
        resetTimeout: deps.resetMs,
        // Open after half of at least 10 lookups in the last 10 s failed.
        errorThresholdPercentage: 50,
        volumeThreshold: 10,
        rollingCountTimeout: 10_000,
        rollingCountBuckets: 10,
        rollingPercentilesEnabled: false,
        enableSnapshots: false,
        // A reply error (a wrong type under the key) is bad data, not an outage: do not trip on it.
        errorFilter: (err: unknown) => err instanceof ReplyError,
      },
    );
  }

  get state(): BreakerState {
    return this.breaker.opened ? 'open' : this.breaker.halfOpen ? 'half_open' : 'closed';
  }

  /**
   * Reports about the subject's number and address, from the feed and from outcomes together;
   * `budgetMs` caps the wait below the breaker's timeout.
   */
  async lookup(subject: Subject, budgetMs: number): Promise<Reputation> {
    const version = this.deps.version();
    if (version === undefined) return 'unavailable';
    const fields: string[] = [];
    const phone = subject.phone_number && canonicalSubject('phone', subject.phone_number);
    const ip = subject.ip_address && canonicalSubject('ip', subject.ip_address);
    if (phone) fields.push(subjectDigest(phone));
    if (ip) fields.push(subjectDigest(ip));
    if (fields.length === 0) return { reports: 0, outcomeReports: 0 };
    try {
      const { feed, outcomes } = await this.breaker.fire(this.deps.key(version), fields, budgetMs);
      const outcomeReports = sum(outcomes);
      return { reports: sum(feed) + outcomeReports, outcomeReports };
    } catch {
      return 'unavailable';
    }
  }

  shutdown(): void {
    this.breaker.shutdown();
  }

  private read(key: string, fields: string[], budgetMs: number): Promise<{ feed: Counts; outcomes: Counts }> {
    // Two plain commands, not a pipeline object: they ride the client's auto-pipeline, which
    // gathers every command of an event-loop turn (other requests' lookups, and the controls
    // script when both share a connection) into one write.
    const { redis, reportsKey } = this.deps;
    const query = Promise.all([
      redis.hmget(key, ...fields) as Promise<Counts>,
      redis.hmget(reportsKey, ...fields) as Promise<Counts>,
    ]).then(([feed, outcomes]) => ({ feed, outcomes }));
    if (budgetMs >= this.deps.timeoutMs) return query;
    let timer: NodeJS.Timeout;
    return Promise.race([
      query,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new BudgetExceeded(`over the ${budgetMs} ms budget`)), budgetMs);
      }),
    ]).finally(() => clearTimeout(timer));
  }
}
