/**
 * The part of the reputation ledger that organisations feed through POST /v1/outcomes: one vote
 * per organisation per subject, under the trust rules of docs/security.md ("Ledger trust").
 *
 * In the ledger Redis, per subject (named by its keyed HMAC, subject-key.ts):
 *
 *   {prefix}:ledger-votes:<subject key>            hash org_id -> "<outcome_id> <state>", expires
 *                                                  REPORT_LIFETIME after its newest vote
 *   {prefix}:ledger-quota:{<org_id>}:<yyyymm>      ledger writes the org made that month (UTC),
 *                                                  expires with the month
 *
 * A vote's state: `t` a report that counts for every organisation (the reporter had scored the
 * subject in the TRUST_WINDOW before), `o` a report that counts for the reporter's own scores
 * only, `w` no longer a report (a later not_fraud or suspected_fraud of the same organisation),
 * `x` withdrawn by an operator. Outcome ids are UUIDv7s, so the larger id is the later outcome and
 * its first 48 bits give its time: an organisation's latest outcome decides its vote, re-delivery
 * and out-of-order delivery change nothing, and a vote older than REPORT_LIFETIME counts for
 * nobody (and is dropped at the next write).
 */
import { readFileSync } from 'node:fs';
import type { RedisClient } from '../clients/redis.ts';

export const DAY_MS = 24 * 60 * 60 * 1000;
/** A report weighs on other organisations only if its reporter scored the subject this long before. */
export const TRUST_WINDOW_MS = 90 * DAY_MS;
/** Reports count this long after they were received, then age out. */
export const REPORT_LIFETIME_MS = 180 * DAY_MS;

export type VoteState = 't' | 'o' | 'w' | 'x';

export const ledgerVotesKey = (prefix: string, subjectKey: string) => `${prefix}:ledger-votes:${subjectKey}`;
export const ledgerQuotaKey = (prefix: string, orgId: string, month: string) =>
  `${prefix}:ledger-quota:{${orgId}}:${month}`;

/** Epoch ms in an outcome id (`oc_` + UUIDv7 hex), or NaN. */
export function outcomeIdTime(outcomeId: string): number {
  return parseInt(outcomeId.slice(3, 15), 16);
}

/** The smallest outcome id of an instant: ids below it are older. */
function idFloor(ms: number): string {
  return `oc_${Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0')}`;
}

/** What one caller's view of a subject (its number and address together) counts from the votes. */
export interface VoteCount {
  /** Distinct organisations whose report counts in this view; a report on both subjects counts once. */
  organisations: number;
  /** Whether the viewer's own report is one of them. */
  own: boolean;
}

/**
 * Counts the votes that weigh on `viewer`'s score. `subjects` holds, per subject, the votes hashes
 * read under each of its keys (the current secret's and, during a rotation, the previous one's).
 * Pure: the rules of who counts live here and nowhere else.
 */
export function countVotes(
  viewer: string,
  subjects: readonly (readonly Record<string, string>[])[],
  nowMs: number,
): VoteCount {
  const oldest = nowMs - REPORT_LIFETIME_MS;
  const counted = new Set<string>();
  for (const hashes of subjects) {
    // An organisation's latest outcome about the subject, across the keys it may sit under.
    const latest = new Map<string, string>();
    for (const votes of hashes) {
      for (const [org, value] of Object.entries(votes)) {
        const before = latest.get(org);
        if (before === undefined || value > before) latest.set(org, value);
      }
    }
    for (const [org, value] of latest) {
      const state = value.slice(value.indexOf(' ') + 1) as VoteState;
      if (outcomeIdTime(value) < oldest) continue;
      if (state === 't' || (state === 'o' && org === viewer)) counted.add(org);
    }
  }
  return { organisations: counted.size, own: counted.has(viewer) };
}

type ScriptedRedis = RedisClient & {
  frsLedgerVote(key: string, ...args: string[]): Promise<number | string>;
  frsLedgerQuota(key: string, ...args: string[]): Promise<number>;
};

function scripted(redis: RedisClient): ScriptedRedis {
  const r = redis as ScriptedRedis;
  if (typeof r.frsLedgerVote !== 'function') {
    redis.defineCommand('frsLedgerVote', {
      lua: readFileSync(new URL('./ledger-vote.lua', import.meta.url), 'utf8'),
      numberOfKeys: 1,
    });
    redis.defineCommand('frsLedgerQuota', {
      lua: readFileSync(new URL('./ledger-quota.lua', import.meta.url), 'utf8'),
      numberOfKeys: 1,
    });
  }
  return r;
}

/** The votes of organisations in the ledger Redis: what the learner and the admin CLI write. */
export class LedgerVotes {
  private readonly redis: ScriptedRedis;
  private readonly prefix: string;
  private readonly writesPerMonth: number;

  /** `writesPerMonth`: the ledger writes one organisation may make per calendar month (UTC). */
  constructor(redis: RedisClient, prefix: string, writesPerMonth: number) {
    this.redis = scripted(redis);
    this.prefix = prefix;
    this.writesPerMonth = writesPerMonth;
  }

  /**
   * Takes `n` writes of the organisation's allowance for the month of `atMs`; false when it is
   * spent, and then the outcome leaves Redis unchanged (ClickHouse still has it).
   */
  async takeAllowance(orgId: string, atMs: number, n: number): Promise<boolean> {
    const at = new Date(atMs);
    const month = `${at.getUTCFullYear()}${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
    // Kept a day past the month's end, so a write at 23:59:59 still finds its counter.
    const expires = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 2);
    const taken = await this.redis.frsLedgerQuota(
      ledgerQuotaKey(this.prefix, orgId, month),
      String(n),
      String(this.writesPerMonth),
      String(expires),
    );
    return taken === 1;
  }

  /**
   * Writes an organisation's vote about one subject (by its key). `mode`: see ledger-vote.lua.
   * Returns whether the subject's votes changed.
   */
  async vote(
    subjectKey: string,
    vote: { orgId: string; outcomeId: string; state: VoteState },
    mode: 'report' | 'lift',
    nowMs: number = Date.now(),
  ): Promise<boolean> {
    return (await this.write(subjectKey, vote, mode, nowMs)) === 1;
  }

  /**
   * An operator's withdrawal of one outcome's vote about one subject (by its key): `withdrawn`
   * when the vote is now marked withdrawn (or was already), else the later outcome of the same
   * organisation that decides its vote instead, untouched.
   */
  async withdraw(
    subjectKey: string,
    orgId: string,
    outcomeId: string,
    nowMs: number = Date.now(),
  ): Promise<{ withdrawn: true } | { withdrawn: false; later: { outcomeId: string; state: VoteState } }> {
    const reply = await this.write(subjectKey, { orgId, outcomeId, state: 'x' }, 'withdraw', nowMs);
    if (typeof reply !== 'string') return { withdrawn: true };
    const [later, state] = reply.split(' ');
    return { withdrawn: false, later: { outcomeId: later!, state: state as VoteState } };
  }

  private async write(
    subjectKey: string,
    vote: { orgId: string; outcomeId: string; state: VoteState },
    mode: 'report' | 'lift' | 'withdraw',
    nowMs: number,
  ): Promise<number | string> {
    const receivedMs = outcomeIdTime(vote.outcomeId);
    return this.redis.frsLedgerVote(
      ledgerVotesKey(this.prefix, subjectKey),
      vote.orgId,
      vote.outcomeId,
      vote.state,
      mode,
      String(Math.max(receivedMs, nowMs - REPORT_LIFETIME_MS) + REPORT_LIFETIME_MS),
      idFloor(nowMs - REPORT_LIFETIME_MS),
    );
  }
}
