/**
 * The figures of a backtest, accumulated from replayed signature groups: band rates of both
 * versions, the band-to-band movement matrix, per-band outcome figures, the population stability
 * index against each version's reference population and the "Score quality" caps. What each
 * figure means: docs/data.md "Backtests".
 */
import type { Band, ContextEffect } from '../vocabulary/score-terms.ts';
import type { ScoreVersion } from '../scoring/engine.ts';
import { replay, reproduces, type Replayed } from '../scoring/replay.ts';
import type { SignatureGroup } from './signatures.ts';

export const BANDS: readonly Band[] = ['minimal', 'low', 'medium', 'high', 'critical'];
export type Role = 'candidate' | 'baseline';
export const ROLES: readonly Role[] = ['candidate', 'baseline'];

/** Labels that count as fraud (docs/data.md "Band performance and drift"). */
const FRAUD = new Set(['confirmed_fraud', 'chargeback']);
/** Actions that put friction on a subject: the ones a not_fraud subject should rarely get. */
const FRICTION = new Set(['block', 'challenge']);

/** "Score quality": at most 1 % critical, 5 % high or above, 15 % medium or above. */
export const CAPS = [
  { name: 'critical', from: 'critical', max: 0.01 },
  { name: 'high_plus', from: 'high', max: 0.05 },
  { name: 'medium_plus', from: 'medium', max: 0.15 },
] as const satisfies readonly { name: string; from: Band; max: number }[];

interface BandTally {
  scores: number;
  fraud: number;
  notFraud: number;
  withOutcome: number;
  notFraudFriction: number;
}

const EFFECTS: readonly ContextEffect[] = ['none', 'band_elevated', 'band_reduced'];

const tally = (): BandTally => ({ scores: 0, fraud: 0, notFraud: 0, withOutcome: 0, notFraudFriction: 0 });
const byBand = <T>(make: () => T) => Object.fromEntries(BANDS.map((b) => [b, make()])) as Record<Band, T>;

export class BacktestTally {
  readonly bands: Record<Role, Record<Band, BandTally>> = {
    candidate: byBand(tally),
    baseline: byBand(tally),
  };
  /** matrix[baseline band][candidate band]: scores. */
  readonly matrix: Record<Band, Record<Band, number>> = byBand(() => byBand(() => 0));
  scores = 0;
  groups = 0;
  /** Scores whose replay under their own version gave back their stored raw risk, score and band. */
  reproduced = 0;
  /** Scores whose stored version is unknown here: counted, replayed, not checked. */
  unknownVersion = 0;
  /**
   * Scores with a context whose effect the row does not keep (a row older than the
   * `context_effect` column, of a tier without context_applied): inferred when exactly one effect
   * gives back the stored band under the row's own version, else ambiguous and replayed without it.
   */
  contextInferred = 0;
  contextAmbiguous = 0;
  private readonly memo = new Map<string, Replayed>();

  readonly candidate: ScoreVersion;
  readonly baseline: ScoreVersion;
  private readonly versions: (id: string) => ScoreVersion | undefined;

  constructor(
    candidate: ScoreVersion,
    baseline: ScoreVersion,
    versions: (id: string) => ScoreVersion | undefined,
  ) {
    this.candidate = candidate;
    this.baseline = baseline;
    this.versions = versions;
  }

  private replayed(g: SignatureGroup, v: ScoreVersion): Replayed {
    const key = `${v.id}\u0000${JSON.stringify(g.signature)}`;
    let r = this.memo.get(key);
    if (!r) {
      // Bounded: signatures are few (a handful of reason codes, postures and moments).
      if (this.memo.size >= 100_000) this.memo.clear();
      this.memo.set(key, (r = replay(g.signature, v)));
    }
    return r;
  }

  /**
   * The signature with its context effect: the row's own where it keeps one (`context_effect`, or
   * `context_applied` in older rows), else inferred from the stored band.
   */
  private withEffect(g: SignatureGroup, own: ScoreVersion | undefined): SignatureGroup {
    if (!g.signature.context || g.signature.effect !== undefined) return g;
    const fits = own ? EFFECTS.filter((effect) => reproduces({ ...g.signature, effect }, own, g.stored)) : [];
    if (fits.length === 1) this.contextInferred += g.scores;
    else this.contextAmbiguous += g.scores;
    const effect = fits.length === 1 || !fits.includes('none') ? (fits[0] ?? 'none') : 'none';
    return { ...g, signature: { ...g.signature, effect } };
  }

  add(group: SignatureGroup): void {
    const n = group.scores;
    this.scores += n;
    this.groups++;
    const own = this.versions(group.version);
    const g = this.withEffect(group, own);
    if (!own) this.unknownVersion += n;
    else if (reproduces(g.signature, own, g.stored)) this.reproduced += n;
    const out = { candidate: this.replayed(g, this.candidate), baseline: this.replayed(g, this.baseline) };
    this.matrix[out.baseline.band][out.candidate.band] += n;
    for (const role of ROLES) {
      const t = this.bands[role][out[role].band];
      t.scores += n;
      if (g.label === '') continue;
      t.withOutcome += n;
      if (FRAUD.has(g.label)) t.fraud += n;
      if (g.label === 'not_fraud') {
        t.notFraud += n;
        if (FRICTION.has(out[role].action)) t.notFraudFriction += n;
      }
    }
  }
}

export interface VersionFigures {
  version: string;
  bands: Record<
    Band,
    {
      scores: number;
      share: number;
      fraud: number;
      not_fraud: number;
      with_outcome: number;
      /** Fraud among the band's scores that have an outcome; null without any. */
      fraud_rate_of_reported: number | null;
      fraud_rate_of_all: number;
    }
  >;
  /** Share of the reported fraud at high or above, and at critical; null without fraud reports. */
  fraud_capture_high_plus: number | null;
  fraud_capture_critical: number | null;
  /** Share of not_fraud scores the version would block or challenge; null without any. */
  not_fraud_friction: number | null;
  /** Against the version's own reference population's band rates; null when it has none. */
  psi: number | null;
  caps: Record<(typeof CAPS)[number]['name'], { share: number; max: number; pass: boolean }>;
  caps_pass: boolean;
}

export interface Figures {
  scores: number;
  groups: number;
  reproduced: number;
  unknown_version: number;
  context_inferred: number;
  context_ambiguous: number;
  candidate: VersionFigures;
  baseline: VersionFigures;
  /** movement[baseline band][candidate band]: scores. */
  movement: Record<Band, Record<Band, number>>;
}

const ratio = (a: number, b: number) => (b === 0 ? null : a / b);

/**
 * Population stability index over the five bands: sum of (actual - expected) * ln(actual /
 * expected), each share floored at 0.0001 so an empty band does not make it infinite.
 */
export function psi(actual: Record<Band, number>, expected: Record<string, number>): number {
  let sum = 0;
  for (const b of BANDS) {
    const a = Math.max(actual[b], 1e-4);
    const e = Math.max(expected[b] ?? 0, 1e-4);
    sum += (a - e) * Math.log(a / e);
  }
  return sum;
}

function versionFigures(
  t: BacktestTally,
  role: Role,
  reference: Record<string, Record<string, number>>,
): VersionFigures {
  const v = role === 'candidate' ? t.candidate : t.baseline;
  const tallies = t.bands[role];
  const share = (b: Band) => (t.scores === 0 ? 0 : tallies[b].scores / t.scores);
  const bands = {} as VersionFigures['bands'];
  for (const b of BANDS) {
    const x = tallies[b];
    bands[b] = {
      scores: x.scores,
      share: share(b),
      fraud: x.fraud,
      not_fraud: x.notFraud,
      with_outcome: x.withOutcome,
      fraud_rate_of_reported: ratio(x.fraud, x.withOutcome),
      fraud_rate_of_all: ratio(x.fraud, x.scores) ?? 0,
    };
  }
  const sum = (f: (x: BandTally) => number, from: Band = 'minimal') =>
    BANDS.slice(BANDS.indexOf(from)).reduce((s, b) => s + f(tallies[b]), 0);
  const caps = {} as VersionFigures['caps'];
  for (const c of CAPS) {
    const s = t.scores === 0 ? 0 : sum((x) => x.scores, c.from) / t.scores;
    caps[c.name] = { share: s, max: c.max, pass: s <= c.max };
  }
  const ref = reference[v.id];
  return {
    version: v.id,
    bands,
    fraud_capture_high_plus: ratio(
      sum((x) => x.fraud, 'high'),
      sum((x) => x.fraud),
    ),
    fraud_capture_critical: ratio(
      sum((x) => x.fraud, 'critical'),
      sum((x) => x.fraud),
    ),
    not_fraud_friction: ratio(
      sum((x) => x.notFraudFriction),
      sum((x) => x.notFraud),
    ),
    psi: ref && t.scores > 0 ? psi(Object.fromEntries(BANDS.map((b) => [b, share(b)])) as never, ref) : null,
    caps,
    caps_pass: CAPS.every((c) => caps[c.name].pass),
  };
}

export function figures(t: BacktestTally, reference: Record<string, Record<string, number>>): Figures {
  return {
    scores: t.scores,
    groups: t.groups,
    reproduced: t.reproduced,
    unknown_version: t.unknownVersion,
    context_inferred: t.contextInferred,
    context_ambiguous: t.contextAmbiguous,
    candidate: versionFigures(t, 'candidate', reference),
    baseline: versionFigures(t, 'baseline', reference),
    movement: t.matrix,
  };
}
