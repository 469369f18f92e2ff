import type { OutcomeAccepted, OutcomeRequest } from '../../shared/contract/outcome.ts';
import { newOutcomeId } from '../../shared/ids.ts';
import { OUTCOME_RECORD_VERSION, type OutcomeRecord } from '../../shared/outcomes/record.ts';
import type { Principal } from './auth.ts';
import { findScoredSubject, type ScoreLookupDeps } from './score-lookup.ts';

/**
 * How long a report may wait for the index entry of a score made moments ago on another node (see
 * findScoredSubject): a chargeback sent right after the 200 must not be told the score does not exist.
 */
const RECENT_GRACE_MS = 2_000;

export interface OutcomeRecorderDeps extends ScoreLookupDeps {
  nodeId: string;
  /** Takes the serialized outcome record; resolves once it is durable (see AuditPublisher). */
  publish: (outcomeId: string, recordJson: string) => Promise<void>;
}

/**
 * Turns a validated outcome into one record on `outcomes.v1` and the 202 body. With a `score_id`
 * the outcome is about that score's subject, so the score is looked up (404 when it is not the
 * caller's or past retention) before anything is published.
 */
export class OutcomeRecorder {
  private readonly deps: OutcomeRecorderDeps;

  constructor(deps: OutcomeRecorderDeps) {
    this.deps = deps;
  }

  async record(req: OutcomeRequest, principal: Principal): Promise<string> {
    const orgId = principal.org.org_id;
    let subject: OutcomeRecord['subject'] = req.subject ?? {};
    if (req.score_id !== undefined) {
      ({ subject } = await findScoredSubject(this.deps, orgId, req.score_id, {
        recentGraceMs: RECENT_GRACE_MS,
      }));
    }
    const nowMs = Date.now();
    const outcomeId = newOutcomeId(nowMs);
    const record: OutcomeRecord = {
      v: OUTCOME_RECORD_VERSION,
      outcome_id: outcomeId,
      org_id: orgId,
      received_at_ms: nowMs,
      // Never later than receipt: a caller clock a little ahead is tolerated by validation only.
      occurred_at_ms: req.occurred_at === undefined ? nowMs : Math.min(nowMs, Date.parse(req.occurred_at)),
      outcome: req.outcome,
      ...(req.score_id !== undefined ? { score_id: req.score_id } : {}),
      subject,
      node_id: this.deps.nodeId,
      request: req,
    };
    // Never a 202 whose record a crash could lose: Kafka acknowledged it or the journal fsynced it.
    await this.deps.publish(outcomeId, JSON.stringify(record));
    const accepted: OutcomeAccepted = { outcome_id: outcomeId, received_at: new Date(nowMs).toISOString() };
    return JSON.stringify(accepted);
  }
}
