import type { Tier } from '../contract/response.ts';

/**
 * What each tier includes, one table. Each tier includes everything of the tier below.
 * Keys are component keys or response-field paths; anything a caller's tier lacks is listed in
 * `suppressed` with the lowest tier that has it.
 */
export const TIER_INCLUSION: Record<Tier, readonly string[]> = {
  verify: ['score', 'band', 'recommended_action', 'coverage', 'caller_id_integrity', 'ip_network_type'],
  assess: [
    'ndc_range_risk',
    'ip_tor_exit',
    'ip_vpn_proxy',
    'subject',
    'primary_risk_factor',
    'benign_exclusions',
    'context_applied',
  ],
  bureau: ['reputation_ledger', 'cluster_id', 'shadow'],
};

const ORDER: Tier[] = ['verify', 'assess', 'bureau'];

/** The lowest tier that includes `item`, or undefined if no tier lists it. */
export function lowestTierWith(item: string): Tier | undefined {
  return ORDER.find((t) => TIER_INCLUSION[t].includes(item));
}

export function includedIn(tier: Tier): Set<string> {
  const out = new Set<string>();
  for (const t of ORDER.slice(0, ORDER.indexOf(tier) + 1)) for (const i of TIER_INCLUSION[t]) out.add(i);
  return out;
}

/** Every item above `tier`, with the lowest tier that has it, in table order. */
export function suppressedFor(tier: Tier): { component: string; available_in: 'assess' | 'bureau' }[] {
  const out: { component: string; available_in: 'assess' | 'bureau' }[] = [];
  for (const t of ORDER.slice(ORDER.indexOf(tier) + 1) as ('assess' | 'bureau')[]) {
    for (const item of TIER_INCLUSION[t]) out.push({ component: item, available_in: t });
  }
  return out;
}
