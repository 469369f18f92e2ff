/**
 * Replays a retained score under any score version with the engine the API runs (engine.ts
 * `bandOf`), from what its audit row keeps: the components the caller's tier saw, the reason codes
 * of every component that found risk (`fired_components`, all tiers), the ledger's report count
 * and how many of them were organisations', and the request's risk posture, moment and context
 * effect.
 *
 * A band depends only on the subject's findings (component, verdict, code, count), the posture,
 * the context's effect and the ledger's report and organisation counts (engine.ts `bandOf`), so the replay scores
 * the stored findings themselves: each visible component as stored, each code a hidden component
 * fired with the verdict its capability declares for it (definition.ts `replay`). No code needs a
 * rule here, so a new one replays exactly as soon as its capability declares it. The organisation's
 * list entry is such a finding too (`org_lists`, seen by every tier): bandOf applies its band
 * effect from the stored code, as the score did. Rows with equal
 * signatures are replayed once. `reproduces` checks a row against its own version: a row whose
 * replay under the version that made it does not give back its stored raw risk, score and band is
 * counted, never trusted.
 */
import { reputationLedger } from '../capabilities/reputation-ledger/index.ts';
import { storedFinding, type CapabilityFinding, type StoredFindings } from '../capabilities/definition.ts';
import { COMPONENT_ORDER } from '../capabilities/component-order.ts';
import type { Action, Band, ContextEffect, Verdict } from '../vocabulary/score-terms.ts';
import { actionFor, bandOf, type ScoreVersion } from './engine.ts';
import type { RiskPosture } from '../vocabulary/scoring-input.ts';
import type { ComponentResult } from './result-types.ts';
import { pointsOf } from './weights.ts';
import type { ReasonCode } from './reason-codes.ts';

/** A stored component as the audit row's evidence has it. */
export interface StoredComponent {
  component: string;
  verdict: Verdict;
  detail?: string;
}

/** Everything of a retained score that its band under any version depends on. */
export interface ReplaySignature {
  /** The components the caller's tier saw (evidence_json `components`). */
  components: readonly StoredComponent[];
  /** Reason codes of every component that found risk, whatever the tier (`fired_components`). */
  fired: readonly string[];
  /** The ledger's report count as the caller saw it (evidence_json `reputation.reports`). */
  reports: number;
  /**
   * Of them, the reporting organisations (evidence_json `reputation.outcome_reports`): what the
   * ledger's ceiling counts. Absent (rows stored before it was kept): `reports`.
   */
  organisations?: number;
  /** The request carried a context (inline or saved). */
  context: boolean;
  posture?: RiskPosture;
  moment?: string;
  /** The context's effect before gates; undefined when the row cannot tell (see backtest docs). */
  effect?: ContextEffect;
}

export interface Replayed {
  raw: number;
  score: number;
  band: Band;
  action: Action;
}

type Definition = (typeof COMPONENT_ORDER)[number];
type Finding = CapabilityFinding<string> & { component: string };

/** The capability that gives each code a component fires with (elevated or adverse). */
const FIRING_CAPABILITY = new Map<string, Definition>(
  COMPONENT_ORDER.flatMap((d) =>
    (Object.entries(d.replay.verdicts) as [string, Verdict][])
      .filter(([, v]) => v === 'elevated' || v === 'adverse')
      .map(([code]): [string, Definition] => [code, d]),
  ),
);

const declared = (d: Definition, code: string, reports: number) =>
  storedFinding(d.replay as StoredFindings<string>, code, reports);

/** The findings a signature stands for, in the order a response lists components. */
export function replayFindings(sig: ReplaySignature): Finding[] {
  const byKey = new Map<string, Finding>();
  for (const c of sig.components) {
    const def = COMPONENT_ORDER.find((d) => d.key === c.component);
    if (!def) continue;
    const detail = c.verdict === 'unavailable' || !c.detail ? 'SOURCE_UNAVAILABLE' : c.detail;
    const times = detail === 'SOURCE_UNAVAILABLE' ? undefined : declared(def, detail, sig.reports).times;
    byKey.set(c.component, {
      component: c.component,
      verdict: c.verdict,
      detail,
      ...(times !== undefined ? { times } : {}),
    });
  }
  // Components the tier hid: only those that found risk can weigh anything, and fired names them.
  for (const code of sig.fired) {
    const def = FIRING_CAPABILITY.get(code);
    if (def && !byKey.has(def.key))
      byKey.set(def.key, { component: def.key, ...declared(def, code, sig.reports) });
  }
  return COMPONENT_ORDER.flatMap((d) => byKey.get(d.key) ?? []);
}

/** The score the API gives the signature's subject under `version`: engine.ts `bandOf`, unchanged. */
export function replay(sig: ReplaySignature, version: ScoreVersion): Replayed {
  const components: ComponentResult[] = replayFindings(sig).map((f) => ({
    component: f.component as ComponentResult['component'],
    verdict: f.verdict,
    contribution: pointsOf(version.points, f.detail as ReasonCode) * (f.times ?? 1),
    detail: f.detail,
  }));
  const raw = components.reduce((sum, c) => sum + c.contribution, 0);
  const ledger = components.find((c) => c.component === reputationLedger.key);
  const reported =
    ledger !== undefined && ledger.verdict !== 'unavailable' && ledger.detail === 'REPUTATION_REPORTED';
  const banded = bandOf(components, raw, version, {
    ...(sig.posture ? { posture: sig.posture } : {}),
    ...(sig.context ? { effect: sig.effect ?? 'none' } : {}),
    ...(reported ? { ledgerReports: Math.max(1, sig.reports) } : {}),
    ...(reported && sig.organisations !== undefined ? { ledgerOrganisations: sig.organisations } : {}),
  });
  return { raw, score: banded.score, band: banded.band, action: actionFor(banded.band, sig.moment) };
}

/** Whether the replay under the row's own version gives back what the row stored. */
export function reproduces(
  sig: ReplaySignature,
  own: ScoreVersion,
  stored: { raw: number; score: number; band: string },
): boolean {
  const r = replay(sig, own);
  return Math.abs(r.raw - stored.raw) < 1e-9 && r.score === stored.score && r.band === stored.band;
}
