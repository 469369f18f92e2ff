/**
 * The ledger's trust rule, decided where outcomes are learned: a report counts for other
 * organisations only if its reporter scored the subject (a 200 from POST /v1/score) in the
 * TRUST_WINDOW before the report. Any other report counts for the reporter's own scores only.
 *
 * - An outcome by `score_id` is about a score the API found to be the reporter's own; the id's
 *   UUIDv7 time says when it was made, so no lookup is needed.
 * - An outcome by subject is checked against `scored_subjects` in ClickHouse (migration 007), one
 *   query per consumed batch. A score made moments before the report may not be there yet: when a
 *   subject is not found, the check waits (at most MAX_WAIT_MS after the report was received)
 *   until the sink group has committed every `scores.v1` record that existed at that point, then
 *   looks once more. So "not scored" is never decided on a pipeline that is merely behind.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClickHouseClient } from '../../shared/clients/clickhouse.ts';
import { quote, quoteIdent } from '../../shared/clients/sql.ts';
import { TRUST_WINDOW_MS } from '../../shared/capabilities/ledger-votes.ts';
import { canonicalSubjects } from '../../shared/capabilities/subject-key.ts';
import { scoreIdTime } from '../../shared/ids.ts';
import type { OutcomeRecord } from '../../shared/outcomes/record.ts';
import type { ScoresProgress } from './scores-progress.ts';
import { readRows, ScoredDayRow } from '../../shared/clickhouse/rows.ts';

/**
 * Longest a report waits, after it was received, for the scores made before it to reach ClickHouse:
 * the sink commits about every second, and a report must reach the ledger within 10 s. A sink
 * slower than this makes such a report count for its reporter only: the safe side.
 */
export const MAX_WAIT_MS = 5_000;
const POLL_MS = 250;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export interface LedgerTrustDeps {
  ch: ClickHouseClient;
  database: string;
  progress: ScoresProgress;
  now?: () => number;
}

interface Pending {
  index: number;
  org: string;
  subjects: string[];
  /** The window by UTC day, and the report's time: a score on its day counts only if made before it. */
  from: string;
  to: string;
  at: number;
}

export class LedgerTrust {
  private readonly deps: LedgerTrustDeps;
  private readonly now: () => number;

  constructor(deps: LedgerTrustDeps) {
    this.deps = deps;
    this.now = deps.now ?? Date.now;
  }

  /**
   * For each outcome, the canonical subjects its organisation had scored in the TRUST_WINDOW before
   * it was received: its report about those counts for everyone. Throws while ClickHouse is down
   * (the learner retries the batch).
   */
  async scoredBefore(outcomes: readonly OutcomeRecord[]): Promise<Set<string>[]> {
    const out = outcomes.map(() => new Set<string>());
    const pending: Pending[] = [];
    for (const [index, o] of outcomes.entries()) {
      const subjects = canonicalSubjects(o.subject);
      const scoredAt = o.score_id === undefined ? null : scoreIdTime(o.score_id);
      const age = scoredAt === null ? Number.NaN : o.received_at_ms - scoredAt;
      // Allow a second of clock difference between the node that scored and the one that received.
      if (age >= -1_000 && age <= TRUST_WINDOW_MS) {
        for (const s of subjects) out[index]!.add(s);
        continue;
      }
      if (subjects.length === 0) continue;
      const from = day(o.received_at_ms - TRUST_WINDOW_MS);
      pending.push({ index, org: o.org_id, subjects, from, to: day(o.received_at_ms), at: o.received_at_ms });
    }
    if (pending.length === 0) return out;

    const missing = await this.resolve(pending, out);
    if (missing.length === 0) return out;
    // Not found: only final once every score made before these reports is in ClickHouse.
    const latestReceived = Math.max(...missing.map((p) => outcomes[p.index]!.received_at_ms));
    const deadline = latestReceived + MAX_WAIT_MS;
    if (this.now() < deadline) {
      const watermark = await this.deps.progress.watermark();
      while (this.now() < deadline && !(await this.deps.progress.reached(watermark))) await sleep(POLL_MS);
      // What is still not found now was not scored in time: it counts for its reporter only.
      await this.resolve(missing, out);
    }
    return out;
  }

  /** Looks the pending subjects up, adds those scored in their window to `out`; returns the rest. */
  private async resolve(pending: readonly Pending[], out: Set<string>[]): Promise<Pending[]> {
    const orgs = [...new Set(pending.map((p) => p.org))];
    const subjects = [...new Set(pending.flatMap((p) => p.subjects))];
    const from = pending.reduce((m, p) => (p.from < m ? p.from : m), pending[0]!.from);
    const to = pending.reduce((m, p) => (p.to > m ? p.to : m), pending[0]!.to);
    const rs = await this.deps.ch.query({
      query: `SELECT org_id, subject, toString(scored_on) AS day, min(scored_at_ms) AS first
              FROM ${quoteIdent(this.deps.database)}.scored_subjects
              WHERE org_id IN (${orgs.map(quote).join(', ')})
                AND subject IN (${subjects.map(quote).join(', ')})
                AND scored_on >= toDate(${quote(from)}) AND scored_on <= toDate(${quote(to)})
              GROUP BY org_id, subject, scored_on`,
      format: 'JSONEachRow',
    });
    const days = new Map<string, { day: string; firstMs: number }[]>();
    for (const row of await readRows(rs, ScoredDayRow)) {
      const k = `${row.org_id}\n${row.subject}`;
      days.set(k, [...(days.get(k) ?? []), { day: row.day, firstMs: row.first }]);
    }
    const rest: Pending[] = [];
    for (const p of pending) {
      const left = p.subjects.filter((s) => {
        const scored = (days.get(`${p.org}\n${s}`) ?? []).some(
          // The report's own day counts only with a score made before the report.
          (d) => d.day >= p.from && (d.day < p.to || (d.day === p.to && d.firstMs <= p.at)),
        );
        if (scored) out[p.index]!.add(s);
        return !scored;
      });
      if (left.length > 0) rest.push({ ...p, subjects: left });
    }
    return rest;
  }
}
