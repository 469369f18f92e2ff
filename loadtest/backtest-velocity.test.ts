/**
 * The velocity backtest's population (backtest-velocity-traffic.ts) on a small draw: rings carry
 * velocity's codes in their stored rows, shared addresses the shared-network code and nothing that
 * scores, and a subject fewer than three organisations scored carries nothing. Without velocity's
 * table in the scoring sources no row would carry a code, and a backtest of the candidate that
 * scores velocity would say nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { VELOCITY_VERSION } from '../shared/capabilities/network-velocity/index.ts';
import { velocitySubjects } from '../shared/capabilities/network-velocity/subjects.ts';
import { DEFAULT_VERSION, findVersion } from '../shared/scoring/versions.ts';
import { velocityTraffic, type ScoredVisit, type VelocityRun } from './backtest-velocity-traffic.ts';

const SHARED = 'NETWORK_VELOCITY_SHARED_NETWORK';
const BANDS = ['minimal', 'low', 'medium', 'high', 'critical'];
let run: VelocityRun;

/** Organisations that scored each canonical velocity subject (number, address, network) in the run. */
function organisationsBySubject(r: VelocityRun): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const v of r.visits)
    for (const { canonical } of velocitySubjects(r.subjects[v.subject]!)) {
      const orgs = out.get(canonical) ?? new Set();
      out.set(canonical, orgs.add(v.org));
    }
  return out;
}

const of = (pattern: string) => run.visits.filter((v) => v.pattern === pattern);
const bySubject = (visits: ScoredVisit[]) => Map.groupBy(visits, (v) => v.subject);

beforeAll(() => {
  run = velocityTraffic({
    count: 800,
    version: DEFAULT_VERSION,
    candidate: findVersion(VELOCITY_VERSION)!,
    endMs: Date.UTC(2026, 10, 28, 12),
    rebuildMs: 300_000,
    seed: 20261210,
  });
}, 60_000);

describe('velocity backtest population', () => {
  it('gives every ring off a shared address an elevated velocity code, stored in its rows', () => {
    const rings = bySubject(of('ring'));
    expect(rings.size).toBe(8);
    for (const visits of rings.values()) {
      const codes = new Set(visits.map((v) => v.velocity));
      if (codes.has(SHARED)) continue;
      expect([...codes].some((c) => c?.startsWith('NETWORK_VELOCITY_1H_'))).toBe(true);
    }
    const stored = run.rows.filter((r) =>
      r.fired_components.some((c) => c.startsWith('NETWORK_VELOCITY_1H_')),
    );
    expect(stored.length).toBe(
      of('ring').filter((v) => v.velocity?.startsWith('NETWORK_VELOCITY_1H_')).length,
    );
    expect(of('ring').every((v) => v.outcome && v.outcome.kind !== 'not_fraud')).toBe(true);
  });

  it('marks shared addresses shared, and the candidate moves none of their scores', () => {
    const shared = bySubject(of('shared'));
    expect(shared.size).toBe(2);
    for (const visits of shared.values()) {
      expect(new Set(visits.map((v) => v.org)).size).toBeGreaterThanOrEqual(25);
      expect(visits.some((v) => v.velocity === SHARED)).toBe(true);
      expect(visits.every((v) => v.velocity === undefined || v.velocity === SHARED)).toBe(true);
      expect(visits.every((v) => v.candidateBand === v.band)).toBe(true);
      expect(visits.every((v) => v.outcome?.kind === 'not_fraud')).toBe(true);
    }
  });

  it('shows nothing for a subject fewer than three organisations scored', () => {
    const orgs = organisationsBySubject(run);
    const quiet = of('honest').filter((v) =>
      velocitySubjects(run.subjects[v.subject]!).every(({ canonical }) => orgs.get(canonical)!.size < 3),
    );
    expect(quiet.length).toBeGreaterThan(0.95 * of('honest').length);
    expect(quiet.filter((v) => v.velocity !== undefined)).toEqual([]);
    expect(quiet.every((v) => BANDS.indexOf(v.candidateBand) <= BANDS.indexOf(v.band))).toBe(true);
  });

  it('writes one row per score and one outcome per labelled score, on that score', () => {
    expect(run.rows.length).toBe(run.visits.length);
    const ids = new Set(run.rows.map((r) => r.score_id));
    expect(run.outcomes.length).toBe(run.visits.filter((v) => v.outcome).length);
    expect(run.outcomes.every((o) => ids.has(o.score_id))).toBe(true);
  });
});
