import type { Tier } from '../vocabulary/score-terms.ts';
import type { Scored } from './engine.ts';
import { includedIn } from './tiers.ts';

/** The full evidence the tier permits, retained for /v1/explain whatever `explain` was. */
export function tierEvidence(scored: Scored, tier: Tier, entitlements: readonly string[] = []) {
  const has = includedIn(tier, entitlements);
  return {
    components: scored.components.filter((c) => has.has(c.component)),
    ...(has.has('subject') ? { subject: scored.subject } : {}),
    ...(has.has('primary_risk_factor') && scored.primary_risk_factor
      ? { primary_risk_factor: scored.primary_risk_factor }
      : {}),
    ...(has.has('benign_exclusions') ? { benign_exclusions: scored.benign_exclusions } : {}),
    ...namedServicesFor(scored, has),
    ...correctionsFor(scored, has),
  };
}

/** The operator corrections of the components the tier includes; absent when there are none. */
function correctionsFor(scored: Scored, has: ReadonlySet<string>) {
  const corrections = scored.corrections.filter((c) => has.has(c.component));
  return corrections.length > 0 ? { corrections } : {};
}

/** The named services of the components the tier includes; absent when none is named. */
function namedServicesFor(scored: Scored, has: ReadonlySet<string>) {
  const services = scored.services.filter((s) => has.has(s.component));
  return services.length > 0 ? { services } : {};
}
