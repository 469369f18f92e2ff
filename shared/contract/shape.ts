import type { ScoreResponse } from './response.ts';
import type { Tier } from '../vocabulary/score-terms.ts';
import { DISCLOSURE, type Scored } from '../scoring/engine.ts';
import { includedIn, suppressedFor } from '../scoring/tiers.ts';

export interface ShapeInput {
  scoreId: string;
  tier: Tier;
  /** Items of higher tiers granted to the caller's organisation. */
  entitlements?: readonly string[];
  versionId: string;
  scored: Scored;
  explain: boolean;
  clientReference?: string;
  shadow?: { score_version: string; score: number; band: ScoreResponse['band'] };
  latencyMs: number;
}

/**
 * Builds the response a caller of `tier` sees: only what the tier includes, everything else
 * listed in `suppressed`. With `explain: false` the evidence layer is left out (it is still
 * retained for /v1/explain).
 */
export function shapeResponse(input: ShapeInput): ScoreResponse {
  const { scored, tier } = input;
  const has = includedIn(tier, input.entitlements);
  const components = scored.components.filter((c) => has.has(c.component));
  const out: ScoreResponse = {
    score_id: input.scoreId,
    tier,
    score_version: input.versionId,
    score: scored.score,
    score_type: 'ranking',
    score_basis: scored.score_basis,
    band: scored.band,
    recommended_action: scored.recommended_action,
    coverage: scored.coverage,
    suppressed: suppressedFor(tier, input.entitlements),
    disclosure: DISCLOSURE,
    degraded_sources: scored.degraded_sources.filter((d) => has.has(d)),
    latency_ms: input.latencyMs,
  };
  if (input.explain) {
    out.components = components;
    if (has.has('subject')) out.subject = scored.subject;
    if (has.has('primary_risk_factor') && scored.primary_risk_factor) {
      out.primary_risk_factor = scored.primary_risk_factor;
    }
    if (has.has('benign_exclusions')) out.benign_exclusions = scored.benign_exclusions;
  }
  if (has.has('context_applied') && scored.context_applied) out.context_applied = scored.context_applied;
  if (has.has('cluster_id') && scored.cluster_id) out.cluster_id = scored.cluster_id;
  if (has.has('shadow') && input.shadow) out.shadow = input.shadow;
  if (input.clientReference !== undefined) out.client_reference = input.clientReference;
  return out;
}
