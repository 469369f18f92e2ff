import { CAPABILITY_DEFINITIONS } from '../capabilities/index.ts';
import type { Tier } from '../vocabulary/score-terms.ts';

/** The components of the capabilities whose lowest tier is `tier`, in registry order. */
const componentsOf = (tier: Tier) => CAPABILITY_DEFINITIONS.filter((c) => c.tier === tier).map((c) => c.key);

/**
 * What each tier includes, one table. Each tier includes everything of the tier below.
 * Keys are component keys (each capability names its tier) or response-field paths; anything a
 * caller's tier lacks is listed in `suppressed` with the lowest tier that has it.
 */
export const TIER_INCLUSION: Record<Tier, readonly string[]> = {
  verify: ['score', 'band', 'recommended_action', 'coverage', ...componentsOf('verify')],
  assess: [
    ...componentsOf('assess'),
    'subject',
    'primary_risk_factor',
    'benign_exclusions',
    'context_applied',
  ],
  bureau: [...componentsOf('bureau'), 'cluster_id', 'shadow'],
};

export const TIER_ORDER: readonly Tier[] = ['verify', 'assess', 'bureau'];

/** The lowest tier that includes `item`, or undefined if no tier lists it. */
export function lowestTierWith(item: string): Tier | undefined {
  return TIER_ORDER.find((t) => TIER_INCLUSION[t].includes(item));
}

/**
 * What a caller sees: its tier's inclusion plus the organisation's own entitlements (items of a
 * higher tier granted to it; docs/contract.md "Tiers").
 */
export function includedIn(
  tier: Tier,
  entitlements: readonly string[] = NO_ENTITLEMENTS,
): ReadonlySet<string> {
  // A scoring request asks four times for its organisation's (one entitlements array per cached
  // organisation), so the set is built once per array and tier.
  let byTier = included.get(entitlements);
  if (!byTier) included.set(entitlements, (byTier = new Map()));
  let out = byTier.get(tier);
  if (!out) {
    const set = new Set<string>(entitlements);
    for (const t of TIER_ORDER.slice(0, TIER_ORDER.indexOf(tier) + 1))
      for (const i of TIER_INCLUSION[t]) set.add(i);
    byTier.set(tier, (out = set));
  }
  return out;
}
const NO_ENTITLEMENTS: readonly string[] = [];
const included = new WeakMap<readonly string[], Map<Tier, ReadonlySet<string>>>();

/** Every item above `tier` not granted as an entitlement, with the lowest tier that has it, in table order. */
export function suppressedFor(
  tier: Tier,
  entitlements: readonly string[] = [],
): { component: string; available_in: 'assess' | 'bureau' }[] {
  const out: { component: string; available_in: 'assess' | 'bureau' }[] = [];
  for (const t of TIER_ORDER.slice(TIER_ORDER.indexOf(tier) + 1) as ('assess' | 'bureau')[]) {
    for (const item of TIER_INCLUSION[t]) {
      if (!entitlements.includes(item)) out.push({ component: item, available_in: t });
    }
  }
  return out;
}
