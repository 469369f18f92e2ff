/**
 * An operator's withdrawal of one outcome from the reputation ledger (`admin ledger withdraw`):
 * recorded in ClickHouse beside the outcome (`outcome_withdrawals`, migration 007), and the
 * organisation's vote from that outcome marked withdrawn in Redis, so it counts for nobody. Also
 * works before the learner applied the outcome: its late delivery then changes nothing.
 */
import type { ClickHouseClient } from '../clients/clickhouse.ts';
import { quote, quoteIdent } from '../clients/sql.ts';
import { OUTCOME_ID_PATTERN } from '../ids.ts';
import { outcomeIdTime, type LedgerVotes } from './ledger-votes.ts';
import { canonicalSubjects, type SubjectKeys } from './subject-key.ts';
import { OutcomeSubjectsRow, readRows } from '../clickhouse/rows.ts';

export interface WithdrawalDeps {
  ch: ClickHouseClient;
  database: string;
  votes: LedgerVotes;
  keys: SubjectKeys;
}

export class WithdrawalError extends Error {}

export async function withdrawOutcome(
  deps: WithdrawalDeps,
  outcomeId: string,
  reason: string,
  operator: string,
): Promise<{ outcome_id: string; org_id: string; subjects: number; withdrawn_at: string }> {
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
  const subjects = canonicalSubjects(subject);
  for (const s of subjects) {
    for (const k of deps.keys.keys(s)) {
      await deps.votes.vote(k, { orgId: row.org_id, outcomeId, state: 'x' }, 'withdraw');
    }
  }
  return {
    outcome_id: outcomeId,
    org_id: row.org_id,
    subjects: subjects.length,
    withdrawn_at: withdrawnAt.toISOString(),
  };
}
