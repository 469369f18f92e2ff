/**
 * Audit rows of `scores` for the reference population (loadtest/subjects.ts: the population the
 * reference bench sends), scored in-process as an API node scores them: evidence from the
 * packaged resolution data and the checked-in feeds (every capability loaded), the draw's ledger
 * reports, the default version in force as released, the bureau tier's response and evidence,
 * serialized by the API's serializer and turned into a row by the sink's `toRow`.
 */
import { toRow } from '../services/audit-sink/sink.ts';
import { AuditRecord, serializeAuditRecord } from '../shared/audit/record.ts';
import { newScoreId } from '../shared/ids.ts';
import { calibrationSources } from '../shared/scoring/calibration/build.ts';
import { drawBootstrap } from '../shared/scoring/calibration/bootstrap.ts';
import { score, type ScoreVersion } from '../shared/scoring/engine.ts';
import { gatherEvidence } from '../shared/scoring/evidence.ts';
import { shapeResponse } from '../shared/contract/shape.ts';
import { tierEvidence } from '../shared/scoring/tier-evidence.ts';
import { SUBJECTS_SEED } from './subjects.ts';

export type ScoreRow = ReturnType<typeof toRow>;

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
    const reputation = { reports: reports[i]! };
    const scored = score({ evidence: gatherEvidence(subject, sources, reputation), version });
    const ms = atMs(i);
    const scoreId = newScoreId(ms);
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
        org_id: orgId,
        tier: 'bureau',
        scored_at: new Date(ms).toISOString(),
        scored_at_ms: ms,
        node_id: 'backtest-reference',
        latency_ms: 1,
        request: { subject },
        evidence: {
          ...tierEvidence(scored, 'bureau'),
          reputation: { reports: reputation.reports, feed_reports: reputation.reports, outcome_reports: 0 },
        },
        raw_risk: scored.raw,
        fired_components: scored.fired,
        ...(scored.context_effect !== undefined && { context_effect: scored.context_effect }),
      },
      JSON.stringify(response),
    );
    return toRow(AuditRecord.parse(JSON.parse(json)));
  });
}
