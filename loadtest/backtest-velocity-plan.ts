/**
 * Who scores which subject of the reference population, and when, for the velocity backtest
 * (loadtest/backtest-velocity.ts): the subjects are the population's own (the bootstrap draw),
 * only this traffic pattern across organisations is simulated. Seeded, so a run is repeatable.
 *
 * - honest: every other subject, scored once by one organisation, picked by size (the r-th
 *   largest scores in proportion to 1/r: a few large merchants and a long tail); a few also by a
 *   second organisation later the same day, as a customer of two merchants is. Velocity shows
 *   nothing below three organisations, so none of them may show anything on its own.
 * - ring: a small share of subjects, each worked through 5 to 25 organisations within one hour,
 *   the pattern network velocity is for; every one of those scores is reported as fraud.
 * - shared: addresses of the population the velocity finding treats as shared (a mobile
 *   operator's gateway, carrier NAT, or a privacy relay), each scored by 25 or more organisations
 *   within a few hours, as such a gateway's many honest users are; reported `not_fraud`.
 * - a sample of honest scores is reported `not_fraud` by the organisation that made it.
 */
import type { OutcomeKind } from '../shared/contract/outcome.ts';
import { rng } from '../shared/scoring/calibration/population.ts';

export type Pattern = 'honest' | 'ring' | 'shared';

/** The simulated traffic's shares; docs/scoring.md gives the reasons beside the report. */
export const VELOCITY_TRAFFIC = {
  organisations: 40,
  /** Honest subjects a second organisation also scores (still below the three velocity needs). */
  secondOrganisation: 0.03,
  /** Subjects worked by a ring: 1 % (the 1-2 %), each through 5 to 25 organisations in an hour. */
  ringShare: 0.01,
  ringOrganisations: [5, 25],
  ringMinutes: 60,
  /** Of a ring's fraud reports, chargebacks (the rest `confirmed_fraud`). */
  ringChargebacks: 0.25,
  /** Shared addresses scored by 25 to 40 organisations within 1 to 6 hours: 0.25 % of subjects. */
  sharedShare: 0.0025,
  sharedOrganisations: [25, 40],
  sharedHours: [1, 6],
  /** Honest scores their organisation reports `not_fraud`. */
  legitimateSample: 0.1,
  /** The traffic covers this many hours up to its end. */
  spanHours: 24,
} as const;

export interface Visit {
  ms: number;
  /** Index of the subject in the draw. */
  subject: number;
  /** Index of the organisation (0: the largest). */
  org: number;
  pattern: Pattern;
  /** The outcome the organisation reports on this score, if any, and when. */
  outcome?: { kind: OutcomeKind; ms: number };
}

export interface PlanInput {
  /** Subjects in the draw. */
  count: number;
  /** Whether a subject is an address alone that the finding treats as shared. */
  shared: (i: number) => boolean;
  endMs: number;
  seed: number;
}

/** Every visit of the traffic, in time order. */
export function planTraffic(input: PlanInput): Visit[] {
  const t = VELOCITY_TRAFFIC;
  const rand = rng(input.seed);
  const startMs = input.endMs - t.spanHours * 3_600_000;
  const between = (lo: number, hi: number) => lo + rand() * (hi - lo);
  const int = ([lo, hi]: readonly [number, number]) => lo + Math.floor(rand() * (hi - lo + 1));
  const { shared, rings } = chooseSubjects(input, rand);
  const visits: Visit[] = [];
  const outcome = (kind: OutcomeKind, ms: number) => ({
    kind,
    ms: Math.floor(Math.min(input.endMs, ms + between(600_000, 6 * 3_600_000))),
  });
  for (const subject of rings) {
    const from = between(startMs, input.endMs - t.ringMinutes * 60_000);
    for (const org of distinctOrgs(rand, int(t.ringOrganisations))) {
      const ms = Math.floor(between(from, from + t.ringMinutes * 60_000));
      const kind = rand() < t.ringChargebacks ? 'chargeback' : 'confirmed_fraud';
      visits.push({ ms, subject, org, pattern: 'ring', outcome: outcome(kind, ms) });
    }
  }
  for (const subject of shared) {
    const hours = between(...t.sharedHours) * 3_600_000;
    const from = between(startMs, input.endMs - hours);
    for (const org of distinctOrgs(rand, int(t.sharedOrganisations))) {
      const ms = Math.floor(between(from, from + hours));
      visits.push({ ms, subject, org, pattern: 'shared', outcome: outcome('not_fraud', ms) });
    }
  }
  const weights = orgWeights();
  for (let subject = 0; subject < input.count; subject++) {
    if (shared.has(subject) || rings.has(subject)) continue;
    const first = weightedOrg(rand, weights);
    const second = (first + 1 + Math.floor(rand() * (t.organisations - 1))) % t.organisations;
    const orgs = rand() < t.secondOrganisation ? [first, second] : [first];
    let ms = startMs;
    for (const org of orgs) {
      ms = Math.floor(between(ms, input.endMs));
      const legit = rand() < t.legitimateSample;
      visits.push({
        ms,
        subject,
        org,
        pattern: 'honest',
        ...(legit && { outcome: outcome('not_fraud', ms) }),
      });
    }
  }
  return visits.sort((a, b) => a.ms - b.ms);
}

/** The shared addresses and the ring subjects (never one of the shared). */
function chooseSubjects(input: PlanInput, rand: () => number) {
  const t = VELOCITY_TRAFFIC;
  const eligible = [...Array(input.count).keys()].filter(input.shared);
  const shared = new Set(sample(rand, eligible, Math.round(t.sharedShare * input.count)));
  const others = [...Array(input.count).keys()].filter((i) => !shared.has(i));
  const rings = new Set(sample(rand, others, Math.round(t.ringShare * input.count)));
  return { shared, rings };
}

/** `n` members of `from` without repeats (fewer when it has fewer). */
function sample<T>(rand: () => number, from: readonly T[], n: number): T[] {
  const pool = [...from];
  for (let i = 0; i < Math.min(n, pool.length); i++) {
    const j = i + Math.floor(rand() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, Math.min(n, pool.length));
}

const distinctOrgs = (rand: () => number, n: number) =>
  sample(rand, [...Array(VELOCITY_TRAFFIC.organisations).keys()], n);

/** Cumulative weights of organisations by size: the r-th largest in proportion to 1/r. */
function orgWeights(): number[] {
  const out: number[] = [];
  let sum = 0;
  for (let r = 1; r <= VELOCITY_TRAFFIC.organisations; r++) out.push((sum += 1 / r));
  return out.map((w) => w / sum);
}

function weightedOrg(rand: () => number, cumulative: readonly number[]): number {
  const x = rand();
  const i = cumulative.findIndex((w) => x < w);
  return i < 0 ? cumulative.length - 1 : i;
}

/** An organisation's id: `org_velocity01` is the largest. */
export const orgId = (org: number) => `org_velocity${String(org + 1).padStart(2, '0')}`;
