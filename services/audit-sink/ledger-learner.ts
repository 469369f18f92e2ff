import type { Consumer, Kafka } from 'kafkajs';
import { Counter } from 'prom-client';
import { OUTCOMES_TOPIC } from '../../shared/clients/kafka.ts';
import type { LedgerVotes } from '../../shared/capabilities/ledger-votes.ts';
import { canonicalSubjects, type SubjectKeys } from '../../shared/capabilities/subject-key.ts';
import { LEDGER_REPORT_KINDS } from '../../shared/contract/outcome.ts';
import type { Logger } from '../../shared/logger.ts';
import { applyWhileOwned, commitBatch } from './batch-steps.ts';
import { OutcomeRecord } from '../../shared/outcomes/record.ts';
import type { LedgerTrust } from './ledger-trust.ts';

const outcomesApplied = new Counter({
  name: 'frs_ledger_outcomes_total',
  help: 'Outcomes the ledger learner handled, by what they did to the ledger',
  labelNames: ['effect'],
});

export interface LedgerApplierDeps {
  votes: LedgerVotes;
  keys: SubjectKeys;
  trust: LedgerTrust;
}

/**
 * What outcomes do to the ledger, under the trust rules (ledger-votes.ts, ledger-trust.ts): a
 * report becomes its organisation's vote about each subject, counting for everyone where the
 * organisation had scored the subject, for itself only otherwise; a not_fraud or suspected_fraud
 * lifts the organisation's earlier vote. An organisation past its monthly allowance of ledger
 * writes changes Redis no more (ClickHouse still has its outcomes).
 */
export class LedgerApplier {
  private readonly deps: LedgerApplierDeps;

  constructor(deps: LedgerApplierDeps) {
    this.deps = deps;
  }

  /**
   * Applies `records` in order; `onApplied` after each, so a caller retrying after an outage can
   * resume where it stopped. Throws while Redis or ClickHouse is down.
   */
  async applyAll(records: readonly OutcomeRecord[], onApplied: () => void = () => undefined): Promise<void> {
    const trusted = await this.deps.trust.scoredBefore(records);
    for (const [i, o] of records.entries()) {
      await this.apply(o, trusted[i]!);
      onApplied();
    }
  }

  /** One outcome's effect on the votes; `trusted`: the subjects its organisation had scored. */
  private async apply(o: OutcomeRecord, trusted: ReadonlySet<string>): Promise<void> {
    const { votes, keys } = this.deps;
    const subjects = canonicalSubjects(o.subject);
    const vote = { orgId: o.org_id, outcomeId: o.outcome_id };
    if (!LEDGER_REPORT_KINDS.has(o.outcome)) {
      // Lifts the organisation's vote wherever it sits, under the previous secret's key too.
      for (const s of subjects)
        for (const k of keys.keys(s)) await votes.vote(k, { ...vote, state: 'w' }, 'lift');
      outcomesApplied.inc({ effect: 'lift' });
      return;
    }
    if (!(await votes.takeAllowance(o.org_id, o.received_at_ms, subjects.length))) {
      outcomesApplied.inc({ effect: 'over_allowance' });
      return;
    }
    for (const s of subjects) {
      await votes.vote(keys.key(s), { ...vote, state: trusted.has(s) ? 't' : 'o' }, 'report');
      outcomesApplied.inc({ effect: trusted.has(s) ? 'report_shared' : 'report_own' });
    }
  }
}

export interface LedgerLearnerDeps {
  kafka: Kafka;
  applier: LedgerApplier;
  log: Logger;
  groupId: string;
}

/**
 * Teaches the reputation ledger from `outcomes.v1` through the LedgerApplier. A consumer group of its own, so the ledger learns within a second even while the sink is
 * holding back. Offsets are committed after Redis took the batch; while Redis or ClickHouse is
 * down the rest of the batch is retried. Undecodable records are skipped here (the sink
 * dead-letters them).
 */
export class LedgerLearner {
  private readonly consumer: Consumer;
  private readonly deps: LedgerLearnerDeps;
  applied = 0;

  constructor(deps: LedgerLearnerDeps) {
    // Outcomes are few and each should reach the ledger at once: no waiting for bytes to pile up
    // (minBytes 1: the broker answers the fetch as soon as one record is there). The wait only
    // bounds how often an idle fetch comes back empty: at 250 ms those four fetches a second
    // were a fifth of an idle broker's CPU (docs/performance.md), at no gain in latency.
    this.consumer = deps.kafka.consumer({ groupId: deps.groupId, minBytes: 1, maxWaitTimeInMs: 1_000 });
    this.deps = deps;
  }

  async start(): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: OUTCOMES_TOPIC, fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async (payload) => {
        const records: OutcomeRecord[] = [];
        for (const message of payload.batch.messages) {
          const parsed = OutcomeRecord.safeParse(
            message.value ? safeJson(message.value.toString('utf8')) : undefined,
          );
          if (parsed.success) records.push(parsed.data);
        }
        // Applied one by one from `done`, so a retry after an outage does not apply a record twice.
        let done = 0;
        const applied =
          records.length === 0 ||
          (await applyWhileOwned(payload, this.deps.log, 'ledger update', () =>
            this.deps.applier.applyAll(records.slice(done), () => {
              done++;
              this.applied++;
            }),
          ));
        if (!applied) return;
        await commitBatch(this.consumer, payload);
      },
    });
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
