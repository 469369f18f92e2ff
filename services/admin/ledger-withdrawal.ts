/**
 * An operator's withdrawal of one outcome from the reputation ledger (`admin ledger withdraw`):
 * recorded in ClickHouse beside the outcome (`outcome_withdrawals`, migration 007), and the
 * organisation's vote from that outcome marked withdrawn in Redis, so it counts for nobody. Also
 * works before the learner applied the outcome: its late delivery then changes nothing.
 *
 * One organisation has one vote per subject, decided by its latest outcome. When a later outcome
 * of the same organisation already decides it, withdrawing the earlier one changes nothing in
 * Redis: the answer says so and names the later outcome (withdraw that one too to take the vote
 * back), rather than reporting a withdrawal that did not happen.
 */
import type { ClickHouseClient } from '../../shared/clients/clickhouse.ts';
import { quote, quoteIdent } from '../../shared/clients/sql.ts';
import { OUTCOME_ID_PATTERN } from '../../shared/ids.ts';
import { outcomeIdTime, type LedgerVotes, type VoteState } from '../../shared/capabilities/ledger-votes.ts';
import { canonicalSubjects, type SubjectKeys } from '../../shared/capabilities/subject-key.ts';
import { OutcomeSubjectsRow, readRows } from '../../shared/clickhouse/rows.ts';

export interface WithdrawalDeps {
  ch: ClickHouseClient;
  database: string;
  votes: LedgerVotes;
  keys: SubjectKeys;
}

export class WithdrawalError extends Error {}

/** A subject of the outcome whose vote a later outcome of the same organisation decides. */
export interface Superseded {
  subject: 'phone_number' | 'ip_address';
  /** The later outcome that decides the organisation's vote on the subject. */
  by: string;
  /** Whether that vote is a report that still counts (a `not_fraud` or a withdrawal does not). */
  still_counts: boolean;
}

export interface Withdrawal {
  outcome_id: string;
  org_id: string;
  withdrawn_at: string;
  /** Subjects of the outcome whose vote from it is now withdrawn. */
  votes_withdrawn: number;
  /** Subjects whose vote a later outcome decides: this withdrawal left them unchanged. */
  superseded: Superseded[];
  /** What happened, in one sentence. */
  result: string;
}

const COUNTING: ReadonlySet<VoteState> = new Set(['t', 'o']);

function summary(votesWithdrawn: number, superseded: readonly Superseded[]): string {
  if (superseded.length === 0)
    return `withdrawn: the outcome's vote counts for nobody (${votesWithdrawn} subject(s))`;
  const later = superseded
    .map((s) => `${s.subject} by ${s.by} (${s.still_counts ? 'still counts' : 'not a report'})`)
    .join('; ');
  const counting = superseded.filter((s) => s.still_counts);
  const head =
    votesWithdrawn === 0
      ? 'nothing withdrawn from the ledger'
      : `withdrawn on ${votesWithdrawn} subject(s) only`;
  const tail =
    counting.length > 0
      ? `; the organisation's vote still counts through the later outcome(s): withdraw ${[...new Set(counting.map((s) => s.by))].join(', ')} to take it back`
      : '';
  return `${head}: a later outcome of the organisation decides its vote on ${later}${tail}`;
}

export async function withdrawOutcome(
  deps: WithdrawalDeps,
  outcomeId: string,
  reason: string,
  operator: string,
): Promise<Withdrawal> {
  if (!OUTCOME_ID_PATTERN.test(outcomeId))
    throw new WithdrawalError('--outcome must be an outcome id (oc_ + 32 hex)');
  const db = quoteIdent(deps.database);
  // The sort key starts with org_id, which is not known yet; the id's own time finds the second.
  const second = Math.floor(outcomeIdTime(outcomeId) / 1000);
  const rs = await deps.ch.query({
    query: `SELECT org_id, phone_number, ip_address FROM ${db}.outcomes
            WHERE received_at = toDateTime(${second}) AND outcome_id = ${quote(outcomeId)} LIMIT 1`,
    format: 'JSONEachRow',
  });
  const [row] = await readRows(rs, OutcomeSubjectsRow);
  if (!row)
    throw new WithdrawalError(`no stored outcome ${outcomeId} (not yet in ClickHouse, or past retention)`);
  const withdrawnAt = new Date();
  await deps.ch.insert({
    table: `${db}.outcome_withdrawals`,
    values: [
      {
        outcome_id: outcomeId,
        org_id: row.org_id,
        withdrawn_at: Math.floor(withdrawnAt.getTime() / 1000),
        reason,
        operator,
      },
    ],
    format: 'JSONEachRow',
  });
  const subject = {
    ...(row.phone_number ? { phone_number: row.phone_number } : {}),
    ...(row.ip_address ? { ip_address: row.ip_address } : {}),
  };
  let votesWithdrawn = 0;
  const superseded: Superseded[] = [];
  for (const s of canonicalSubjects(subject)) {
    // Under each key of the subject (two during a secret rotation); the latest later outcome decides.
    let later: { outcomeId: string; state: VoteState } | undefined;
    for (const k of deps.keys.keys(s)) {
      const done = await deps.votes.withdraw(k, row.org_id, outcomeId);
      if (!done.withdrawn && (later === undefined || done.later.outcomeId > later.outcomeId))
        later = done.later;
    }
    if (later === undefined) votesWithdrawn++;
    else
      superseded.push({
        subject: s.startsWith('phone:') ? 'phone_number' : 'ip_address',
        by: later.outcomeId,
        still_counts: COUNTING.has(later.state),
      });
  }
  return {
    outcome_id: outcomeId,
    org_id: row.org_id,
    withdrawn_at: withdrawnAt.toISOString(),
    votes_withdrawn: votesWithdrawn,
    superseded,
    result: summary(votesWithdrawn, superseded),
  };
}
