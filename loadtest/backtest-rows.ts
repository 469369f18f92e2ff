/**
 * Audit rows of `scores` for the reference population (loadtest/subjects.ts: the population the
 * reference bench sends), scored in-process as an API node scores them: evidence from the
 * packaged resolution data and the checked-in feeds (every capability loaded), the draw's ledger
 * reports, the default version in force as released, the bureau tier's response and evidence,
 * serialized by the API's serializer and turned into a row by the sink's `toRow`.
 */
import { toRow } from '../services/audit-sink/sink.ts';
import { AuditRecord, serializeAuditRecord } from '../shared/audit/record.ts';
import type { Evidence } from '../shared/capabilities/evidence.ts';
import { newScoreId } from '../shared/ids.ts';
import { calibrationSources } from '../shared/scoring/calibration/build.ts';
import { drawBootstrap } from '../shared/scoring/calibration/bootstrap.ts';
import type { PopulationSubject } from '../shared/scoring/calibration/population.ts';
import { score, type Scored, type ScoreVersion } from '../shared/scoring/engine.ts';
import { gatherEvidence } from '../shared/scoring/evidence.ts';
import { shapeResponse } from '../shared/contract/shape.ts';
import { tierEvidence } from '../shared/scoring/tier-evidence.ts';
import { SUBJECTS_SEED } from './subjects.ts';

export type ScoreRow = ReturnType<typeof toRow>;

/** Who scored the subject, when, and on which node (the row's `node_id`). */
export interface ScoringMoment {
  orgId: string;
  ms: number;
  nodeId: string;
}

/** The first `count` subjects of the reference population as rows scored under `version`, at `atMs(i)`. */
export function referenceRows(
  count: number,
  version: ScoreVersion,
  orgId: string,
  atMs: (i: number) => number,
): ScoreRow[] {
  const { subjects, reports } = drawBootstrap(count, SUBJECTS_SEED);
  const sources = calibrationSources();
  return subjects.map((subject, i) => {
    const evidence = gatherEvidence(subject, sources, { reports: reports[i]! });
    const moment = { orgId, ms: atMs(i), nodeId: 'backtest-reference' };
    return scoredRow(subject, evidence, version, moment).row;
  });
}

/**
 * One subject scored under `version` from `evidence` (its reputation the draw's reports) by a
 * bureau organisation at `at`: the audit record the API writes, as the sink's row.
 */
export function scoredRow(
  subject: PopulationSubject,
  evidence: Evidence,
  version: ScoreVersion,
  at: ScoringMoment,
): { row: ScoreRow; scored: Scored } {
  const reports =
    evidence.reputation === undefined || evidence.reputation === 'unavailable'
      ? 0
      : evidence.reputation.reports;
  const scored = score({ evidence, version });
  const scoreId = newScoreId(at.ms);
  const response = shapeResponse({
    scoreId,
    tier: 'bureau',
    versionId: version.id,
    scored,
    explain: true,
    latencyMs: 1,
  });
  const json = serializeAuditRecord(
    {
      v: 1,
      score_id: scoreId,
      org_id: at.orgId,
      tier: 'bureau',
      scored_at: new Date(at.ms).toISOString(),
      scored_at_ms: at.ms,
      node_id: at.nodeId,
      latency_ms: 1,
      request: { subject },
      evidence: {
        ...tierEvidence(scored, 'bureau'),
        reputation: { reports, feed_reports: reports, outcome_reports: 0 },
      },
      raw_risk: scored.raw,
      fired_components: scored.fired,
      ...(scored.context_effect !== undefined && { context_effect: scored.context_effect }),
    },
    JSON.stringify(response),
  );
  return { row: toRow(AuditRecord.parse(JSON.parse(json))), scored };
}
