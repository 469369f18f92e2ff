/**
 * Request options that ask for what a tier includes (scoring/tiers.ts): a caller whose tier and
 * entitlements lack it is refused with E_ENTITLEMENT_REQUIRED before anything is scored.
 */
import type { Tier } from '../vocabulary/score-terms.ts';
import { includedIn, lowestTierWith } from '../scoring/tiers.ts';
import type { ErrorItem } from './errors.ts';
import type { ScoreRequest } from './request.ts';

/** Request options that ask for an included item; sending one the tier lacks is a 403. */
export const OPTION_ENTITLEMENTS: Record<string, { item: string; present: (r: ScoreRequest) => boolean }> = {
  'options.shadow_version': { item: 'shadow', present: (r) => r.options?.shadow_version !== undefined },
};

/** One E_ENTITLEMENT_REQUIRED item per requested option the tier lacks; `field` names the option. */
export function entitlementErrors(
  request: ScoreRequest,
  tier: Tier,
  entitlements: readonly string[] = [],
): ErrorItem[] {
  const has = includedIn(tier, entitlements);
  const out: ErrorItem[] = [];
  for (const [field, rule] of Object.entries(OPTION_ENTITLEMENTS)) {
    if (!rule.present(request) || has.has(rule.item)) continue;
    out.push({
      code: 'E_ENTITLEMENT_REQUIRED',
      message: `${field} needs the ${lowestTierWith(rule.item)} tier; this key's tier is ${tier}`,
      field,
    });
  }
  return out;
}
