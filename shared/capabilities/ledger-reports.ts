/**
 * The part of the reputation ledger that organisations feed through POST /v1/outcomes, beside
 * the versioned consortium feed (store.ts). Per subject digest, in the ledger Redis:
 *
 *   {prefix}:ledger-reports:latest:{digest}     hash org_id -> "<outcome_id> <1|0>": the org's
 *                                               latest outcome for the subject and whether it counts
 *   {prefix}:ledger-reports:reporters:{digest}  set of org_ids whose latest outcome counts
 *   {prefix}:ledger-reports:counts              hash digest -> size of that set
 *
 * API nodes read only the counts hash, in the same round trip as the feed's version hash.
 * Subjects appear only as digests (see reputation-feed.ts), never in clear.
 */
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { LEDGER_REPORT_KINDS, type OutcomeKind } from '../contract/outcome.ts';
import { canonicalSubject, subjectDigest } from './feeds/reputation-feed.ts';

export const ledgerReportCountsKey = (prefix: string) => `${prefix}:ledger-reports:counts`;
const latestKey = (prefix: string, digest: string) => `${prefix}:ledger-reports:latest:${digest}`;
const reportersKey = (prefix: string, digest: string) => `${prefix}:ledger-reports:reporters:${digest}`;

/** The digests an outcome's subject is counted under: its number and its address, each on its own. */
export function subjectDigests(subject: { phone_number?: string; ip_address?: string }): string[] {
  const out: string[] = [];
  const phone = subject.phone_number && canonicalSubject('phone', subject.phone_number);
  const ip = subject.ip_address && canonicalSubject('ip', subject.ip_address);
  if (phone) out.push(subjectDigest(phone));
  if (ip) out.push(subjectDigest(ip));
  return out;
}

interface ScriptedRedis extends Redis {
  frsApplyOutcome(k1: string, k2: string, k3: string, ...args: string[]): Promise<number>;
}

/**
 * Applies outcomes to the ledger. Each organisation counts once per subject, by its latest
 * outcome (outcome ids are UUIDv7, so the larger id is the later report): one organisation can
 * never add more than one report to a subject, however often it reports it. Re-applying an
 * outcome, or applying an older one after a newer, changes nothing, so at-least-once delivery
 * from Kafka is harmless.
 */
export class LedgerReports {
  private readonly redis: ScriptedRedis;
  private readonly prefix: string;

  constructor(redis: Redis, prefix: string) {
    redis.defineCommand('frsApplyOutcome', {
      lua: readFileSync(new URL('./apply-outcome.lua', import.meta.url), 'utf8'),
      numberOfKeys: 3,
    });
    this.redis = redis as ScriptedRedis;
    this.prefix = prefix;
  }

  /** Returns, per digest, how many organisations now report the subject. */
  async apply(o: {
    outcome_id: string;
    org_id: string;
    outcome: OutcomeKind;
    subject: { phone_number?: string; ip_address?: string };
  }): Promise<number[]> {
    const counts = LEDGER_REPORT_KINDS.has(o.outcome) ? '1' : '0';
    const out: number[] = [];
    for (const digest of subjectDigests(o.subject)) {
      out.push(
        await this.redis.frsApplyOutcome(
          latestKey(this.prefix, digest),
          reportersKey(this.prefix, digest),
          ledgerReportCountsKey(this.prefix),
          o.org_id,
          o.outcome_id,
          counts,
          digest,
        ),
      );
    }
    return out;
  }
}
