/**
 * The reference population's subjects (the bootstrap draw of loadtest/subjects.ts) scored across
 * many organisations as API nodes would have scored them with network velocity's data present:
 * the traffic (backtest-velocity-plan.ts) in time order, each score counted as the audit sink
 * counts it, and the table rebuilt every few simulated minutes as the refresher publishes it
 * (backtest-velocity-counts.ts), each score seeing the table last published before it. Rows are
 * the sink's (backtest-rows.ts), outcomes the outcomes pipeline's (`toOutcomeRow`).
 *
 * Scored under `version` (the default: velocity's codes are stored with 0 points), and, for the
 * summary only, under `candidate` from the same evidence: what a backtest replays the rows to.
 */
import { networkVelocity } from '../shared/capabilities/network-velocity/index.ts';
import { sharedAddress } from '../shared/capabilities/network-velocity/finding.ts';
import type { VelocityTable } from '../shared/capabilities/network-velocity/table.ts';
import { SubjectKeys } from '../shared/capabilities/subject-key.ts';
import { newOutcomeId } from '../shared/ids.ts';
import { OutcomeRecord, toOutcomeRow } from '../shared/outcomes/record.ts';
import { calibrationSources } from '../shared/scoring/calibration/build.ts';
import { drawBootstrap } from '../shared/scoring/calibration/bootstrap.ts';
import type { PopulationSubject } from '../shared/scoring/calibration/population.ts';
import { score, type ScoreVersion } from '../shared/scoring/engine.ts';
import { gatherEvidence, type EvidenceSources } from '../shared/scoring/evidence.ts';
import type { Band } from '../shared/vocabulary/score-terms.ts';
import { scoredRow, type ScoreRow } from './backtest-rows.ts';
import { VelocityTally } from './backtest-velocity-counts.ts';
import { orgId, planTraffic, type Pattern, type Visit } from './backtest-velocity-plan.ts';
import { SUBJECTS_SEED } from './subjects.ts';

const NODE_ID = 'backtest-velocity';
/**
 * Names subjects in the in-memory counts and the table alike, as a deployment's ledger secret
 * does; nothing named by it leaves this process.
 */
const NAMING = new SubjectKeys('backtest-velocity: the counts and the table of one run');

export interface TrafficInput {
  /** Subjects drawn from the reference population. */
  count: number;
  version: ScoreVersion;
  candidate: ScoreVersion;
  /** The traffic's last moment (epoch ms). */
  endMs: number;
  /** Simulated time between two tables. */
  rebuildMs: number;
  seed: number;
}

/** One score of the run: its pattern, its velocity code (if any) and its band under each version. */
export interface ScoredVisit extends Visit {
  velocity?: string;
  band: Band;
  candidateBand: Band;
  /** The candidate's band from the same evidence without velocity's table: what velocity itself moved. */
  candidateBandWithout: Band;
}

export interface VelocityRun {
  rows: ScoreRow[];
  outcomes: ReturnType<typeof toOutcomeRow>[];
  visits: ScoredVisit[];
  subjects: PopulationSubject[];
}

export function velocityTraffic(input: TrafficInput): VelocityRun {
  const { subjects, reports } = drawBootstrap(input.count, SUBJECTS_SEED);
  const sources = calibrationSources();
  const shared = subjects.map((s) => !s.phone_number && sharedAddress(gatherEvidence(s, sources).ip));
  const plan = planTraffic({
    count: input.count,
    shared: (i) => shared[i]!,
    endMs: input.endMs,
    seed: input.seed,
  });
  const tally = new VelocityTally(NAMING);
  const run: VelocityRun = { rows: [], outcomes: [], visits: [], subjects };
  let built = { ms: plan[0]?.ms ?? input.endMs, table: tally.table(plan[0]?.ms ?? input.endMs) };
  for (const visit of plan) {
    while (visit.ms >= built.ms + input.rebuildMs) {
      const ms = built.ms + input.rebuildMs;
      built = { ms, table: tally.table(ms) };
    }
    const subject = subjects[visit.subject]!;
    const evidence = gatherEvidence(subject, withTable(sources, built.table, visit.ms - built.ms), {
      reports: reports[visit.subject]!,
    });
    const at = { orgId: orgId(visit.org), ms: visit.ms, nodeId: NODE_ID };
    const { row, scored } = scoredRow(subject, evidence, input.version, at);
    tally.add(at.orgId, subject, visit.ms);
    const velocity = scored.components.find((c) => c.component === networkVelocity.key)?.detail;
    const candidateBand = score({ evidence, version: input.candidate }).band;
    const without = { ...evidence, data: { ...evidence.data, [networkVelocity.key]: undefined } };
    const candidateBandWithout = score({ evidence: without, version: input.candidate }).band;
    run.rows.push(row);
    run.visits.push({
      ...visit,
      ...(velocity && { velocity }),
      band: scored.band,
      candidateBand,
      candidateBandWithout,
    });
    if (visit.outcome) run.outcomes.push(outcomeRow(visit, row, subject));
  }
  return run;
}

/**
 * The sources with velocity's table as a node holds it `ageMs` after it was published. The
 * finding reads a table's age against the wall clock (it stops reading a window once the counts
 * are older than a quarter of it), so a replay in simulated time stamps the table with the age it
 * would have at that moment.
 */
function withTable(sources: EvidenceSources, table: VelocityTable, ageMs: number): EvidenceSources {
  table.countedAtS = (Date.now() - ageMs) / 1000;
  return { ...sources, data: { ...sources.data, [networkVelocity.key]: table } };
}

/** The outcome the visit's organisation reports on its score, as the outcomes pipeline writes it. */
function outcomeRow(visit: Visit, row: ScoreRow, subject: PopulationSubject) {
  const { kind, ms } = visit.outcome!;
  return toOutcomeRow(
    OutcomeRecord.parse({
      v: 1,
      outcome_id: newOutcomeId(ms),
      org_id: row.org_id,
      received_at_ms: ms,
      occurred_at_ms: visit.ms,
      outcome: kind,
      score_id: row.score_id,
      subject,
      node_id: NODE_ID,
      request: { score_id: row.score_id, outcome: kind },
    }),
  );
}

const BAND_ORDER: readonly Band[] = ['minimal', 'low', 'medium', 'high', 'critical'];
const rank = (b: Band) => BAND_ORDER.indexOf(b);
const FIGURES = [
  'scores',
  'subjects',
  'subjects_elevated',
  'labelled',
  'labelled_moved_up',
  'velocity_elevated',
  'velocity_shared',
  'medium_plus_baseline',
  'medium_plus_candidate',
  'high_plus_baseline',
  'high_plus_candidate',
  'moved_up',
  'moved_down',
  'moved_up_to_high_plus',
  'velocity_moved_up',
  'velocity_moved_to_high_plus',
] as const;
type PatternFigures = Record<(typeof FIGURES)[number], number>;

/**
 * Per pattern: scores and subjects, the velocity codes they carry, their bands under the version
 * they were made with and under the candidate, and what velocity itself moved (the candidate's
 * band against its band from the same evidence without velocity's table).
 */
export function summarise(visits: readonly ScoredVisit[]): Partial<Record<Pattern, PatternFigures>> {
  const out: Partial<Record<Pattern, PatternFigures>> = {};
  const subjects = new Map<Pattern, { all: Set<number>; elevated: Set<number> }>();
  for (const v of visits) {
    const s = (out[v.pattern] ??= Object.fromEntries(FIGURES.map((f) => [f, 0])) as PatternFigures);
    const seen = subjects.get(v.pattern) ?? { all: new Set(), elevated: new Set() };
    subjects.set(v.pattern, seen);
    seen.all.add(v.subject);
    const elevated = v.velocity !== undefined && v.velocity !== 'NETWORK_VELOCITY_SHARED_NETWORK';
    if (elevated) seen.elevated.add(v.subject);
    const up = rank(v.candidateBand) > rank(v.band);
    const into = (from: Band, to: Band, floor: Band) => rank(to) >= rank(floor) && rank(from) < rank(floor);
    const counts: [keyof PatternFigures, boolean][] = [
      ['scores', true],
      ['labelled', v.outcome !== undefined],
      ['labelled_moved_up', v.outcome !== undefined && up],
      ['velocity_elevated', elevated],
      ['velocity_shared', v.velocity === 'NETWORK_VELOCITY_SHARED_NETWORK'],
      ['medium_plus_baseline', rank(v.band) >= rank('medium')],
      ['medium_plus_candidate', rank(v.candidateBand) >= rank('medium')],
      ['high_plus_baseline', rank(v.band) >= rank('high')],
      ['high_plus_candidate', rank(v.candidateBand) >= rank('high')],
      ['moved_up', up],
      ['moved_down', rank(v.candidateBand) < rank(v.band)],
      ['moved_up_to_high_plus', into(v.band, v.candidateBand, 'high')],
      ['velocity_moved_up', rank(v.candidateBand) > rank(v.candidateBandWithout)],
      ['velocity_moved_to_high_plus', into(v.candidateBandWithout, v.candidateBand, 'high')],
    ];
    for (const [figure, yes] of counts) if (yes) s[figure]++;
  }
  for (const [p, seen] of subjects) {
    out[p]!.subjects = seen.all.size;
    out[p]!.subjects_elevated = seen.elevated.size;
  }
  return out;
}
