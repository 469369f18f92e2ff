/**
 * CPU per scoring request with a silent challenger on against off, same run:
 * `node loadtest/challenger-bench.ts [requests-per-round] [rounds]` (default 20000, 6).
 *
 * Each request is what Scorer.score does without HTTP: evidence gathering, the default version's
 * score, response shaping and serialization, the audit record; with the challenger, its score
 * too. Rounds alternate off/on so drift of a shared machine hits both; the figure is user+system
 * CPU time of this process per request (process.cpuUsage), median over rounds.
 */
import { serializeAuditRecord } from '../shared/audit/record.ts';
import { newScoreId } from '../shared/ids.ts';
import { calibrationSources } from '../shared/scoring/calibration/build.ts';
import { drawBootstrap } from '../shared/scoring/calibration/bootstrap.ts';
import { score, type ScoreVersion } from '../shared/scoring/engine.ts';
import { gatherEvidence } from '../shared/scoring/evidence.ts';
import { shapeResponse } from '../shared/contract/shape.ts';
import { tierEvidence } from '../shared/scoring/tier-evidence.ts';
import { DEFAULT_VERSION, findVersion } from '../shared/scoring/versions.ts';

const perRound = Number(process.argv[2] ?? 20_000);
const rounds = Number(process.argv[3] ?? 6);
const challenger = findVersion('2026.12.1')!;
const sources = calibrationSources();
const subjects = drawBootstrap(2_000, 7).subjects;

function request(i: number, challengerVersion: ScoreVersion | undefined): string {
  const subject = subjects[i % subjects.length]!;
  const evidence = gatherEvidence(subject, sources, { reports: 0 });
  const scored = score({ evidence, version: DEFAULT_VERSION });
  const ch = challengerVersion ? score({ evidence, version: challengerVersion }) : undefined;
  const id = newScoreId();
  const body = JSON.stringify(
    shapeResponse({
      scoreId: id,
      tier: 'bureau',
      versionId: DEFAULT_VERSION.id,
      scored,
      explain: true,
      latencyMs: 1,
    }),
  );
  return serializeAuditRecord(
    {
      v: 1,
      score_id: id,
      org_id: 'org_bench',
      tier: 'bureau',
      scored_at: new Date().toISOString(),
      scored_at_ms: Date.now(),
      node_id: 'bench',
      latency_ms: 1,
      request: { subject },
      evidence: tierEvidence(scored, 'bureau'),
      raw_risk: scored.raw,
      fired_components: scored.fired,
      ...(scored.context_effect !== undefined && { context_effect: scored.context_effect }),
      ...(ch && {
        challenger: {
          score_version: challengerVersion!.id,
          score: ch.score,
          band: ch.band,
          raw_risk: ch.raw,
        },
      }),
    },
    body,
  );
}

function round(on: boolean): number {
  const before = process.cpuUsage();
  for (let i = 0; i < perRound; i++) request(i, on ? challenger : undefined);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / perRound;
}

for (let i = 0; i < perRound; i++) request(i, i % 2 ? challenger : undefined); // warm-up
const off: number[] = [];
const on: number[] = [];
for (let r = 0; r < rounds; r++) {
  off.push(round(false));
  on.push(round(true));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const [mOff, mOn] = [median(off), median(on)];
console.log(`CPU per request, ${rounds} alternating rounds of ${perRound} requests (median):`);
console.log(`  challenger off: ${mOff.toFixed(1)} µs`);
console.log(`  challenger on:  ${mOn.toFixed(1)} µs  (${challenger.id} beside ${DEFAULT_VERSION.id})`);
console.log(`  ratio on/off:   ${(mOn / mOff).toFixed(3)}  (+${(mOn - mOff).toFixed(1)} µs)`);
