/**
 * The live reputation-ledger lookup: one round trip to the ledger Redis per scored request (an
 * HMGET of the consortium feed's current version, and the votes organisations gave each subject
 * through POST /v1/outcomes, counted for the caller under the trust rules of ledger-votes.ts),
 * behind an opossum breaker named for the capability. It is sent
 * before the controls script and runs concurrently with it, on a fail-fast connection: the
 * controls' own when the ledger lives on the same Redis (one write carries both), a connection of
 * its own when LEDGER_REDIS_URL names another server. Anything that goes wrong (timeout, open
 * breaker, Redis down) answers `unavailable`, never an error.
 */
import CircuitBreaker from 'opossum';
import { ReplyError } from 'ioredis';
import type { RedisClient } from '../../../shared/clients/redis.ts';
import { countVotes } from '../../../shared/capabilities/ledger-votes.ts';
import { canonicalSubjects, type SubjectKeys } from '../../../shared/capabilities/subject-key.ts';
import type { BreakerState } from '../../../shared/capabilities/model.ts';
import type { Subject } from '../../../shared/contract/request.ts';
import type { Reputation } from '../../../shared/capabilities/evidence.ts';
import { LedgerBatch } from './ledger-batch.ts';
import { reputationLedger } from '../../../shared/capabilities/reputation-ledger/index.ts';

export interface LedgerLookupDeps {
  redis: RedisClient;
  /** The hash key of a ledger version. */
  key: (version: string) => string;
  /** The votes hash of a subject key (see ledger-votes.ts). */
  votesKey: (subjectKey: string) => string;
  /** How subjects are named in the ledger (the keyed HMAC). */
  subjectKeys: SubjectKeys;
  /** The version to read, as the snapshot cache last learned it. */
  version: () => string | undefined;
  timeoutMs: number;
  resetMs: number;
}

type Counts = (string | null)[];
const sum = (values: Counts) => values.reduce((n: number, v) => n + (v === null ? 0 : Number(v) || 0), 0);
/** The feed's counts, and per subject the votes hashes read under each of its keys. */
type Read = { feed: Counts; votes: Record<string, string>[][] };

class BudgetExceeded extends Error {
  override name = 'BudgetExceeded';
}

export class LedgerLookup {
  readonly breaker: CircuitBreaker<[string, string[], string[][], number], Read>;
  private readonly deps: LedgerLookupDeps;
  private readonly batch: LedgerBatch;

  constructor(deps: LedgerLookupDeps) {
    this.deps = deps;
    this.batch = new LedgerBatch(deps.redis);
    this.breaker = new CircuitBreaker(
      (key: string, fields: string[], votes: string[][], budgetMs: number) =>
        this.read(key, fields, votes, budgetMs),
      {
        name: reputationLedger.key,
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
   * Reports about the subject's number and address as organisation `viewer` sees them: the feed's,
   * and the organisations' votes that count for it (each organisation once, across both subjects).
   * `budgetMs` caps the wait below the breaker's timeout.
   */
  async lookup(subject: Subject, budgetMs: number, viewer: string): Promise<Reputation> {
    const version = this.deps.version();
    if (version === undefined) return 'unavailable';
    // An open breaker refuses anyway, after building an Error with its stack trace; asking first
    // skips that and the subject's HMACs on every request of an outage. opossum's own timer moves
    // it to half-open after resetTimeout, and the next lookup is then the probe.
    if (this.breaker.opened) return 'unavailable';
    const { subjectKeys, votesKey } = this.deps;
    const canonical = canonicalSubjects(subject);
    if (canonical.length === 0) return { reports: 0, outcomeReports: 0 };
    // Each HMAC once: the feed is keyed on the current secret's name, the first of `keys`.
    const named = canonical.map((c) => subjectKeys.keys(c));
    const fields = named.map((keys) => keys[0]!);
    const votes = named.map((keys) => keys.map(votesKey));
    try {
      const read = await this.breaker.fire(this.deps.key(version), fields, votes, budgetMs);
      const counted = countVotes(viewer, read.votes, Date.now());
      return {
        reports: sum(read.feed) + counted.organisations,
        outcomeReports: counted.organisations,
        ownReport: counted.own,
      };
    } catch {
      return 'unavailable';
    }
  }

  shutdown(): void {
    this.breaker.shutdown();
  }

  private read(key: string, fields: string[], votes: string[][], budgetMs: number): Promise<Read> {
    // The feed's fields and the votes hashes join the turn's reads (ledger-batch.ts): one HMGET
    // of the feed and one script for every votes hash, on the client's auto-pipeline, which
    // writes them with the turn's other commands (the controls script among them when both
    // share a connection).
    const flat = votes.flat();
    const query = Promise.all([this.batch.feed(key, fields), this.batch.hashes(flat)]).then(
      ([feed, hashes]) => {
        // Back to one list per subject: its keys' hashes, in the order the keys were given.
        let at = 0;
        const bySubject = votes.map((keys) => {
          const mine = hashes.slice(at, at + keys.length);
          at += keys.length;
          return mine;
        });
        return { feed, votes: bySubject };
      },
    );
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
