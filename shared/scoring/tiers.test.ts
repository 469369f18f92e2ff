import { describe, expect, it } from 'vitest';
import { includedIn, lowestTierWith, suppressedFor, TIER_INCLUSION } from './tiers.ts';

describe('tiers', () => {
  it('each tier includes everything of the tier below', () => {
    for (const item of TIER_INCLUSION.verify) expect(includedIn('assess').has(item)).toBe(true);
    for (const item of TIER_INCLUSION.assess) expect(includedIn('bureau').has(item)).toBe(true);
    expect(includedIn('verify').has('ndc_range_risk')).toBe(false);
  });

  it('an entitlement counts for its own organisation only, whatever was asked before', () => {
    const granted = ['cluster_id'];
    expect(includedIn('verify', granted).has('cluster_id')).toBe(true);
    expect(includedIn('verify', granted)).toBe(includedIn('verify', granted));
    expect(includedIn('verify').has('cluster_id')).toBe(false);
    expect(includedIn('verify', []).has('cluster_id')).toBe(false);
    expect(includedIn('assess', granted).has('cluster_id')).toBe(true);
    expect(includedIn('assess', granted).size).toBe(includedIn('assess').size + 1);
  });

  it('suppressed lists exactly what the tier lacks, each with the lowest tier that has it', () => {
    expect(suppressedFor('bureau')).toEqual([]);
    expect(suppressedFor('assess').every((s) => s.available_in === 'bureau')).toBe(true);
    const verify = suppressedFor('verify');
    expect(verify).toHaveLength(TIER_INCLUSION.assess.length + TIER_INCLUSION.bureau.length);
    for (const s of verify) expect(lowestTierWith(s.component)).toBe(s.available_in);
  });

  it('an organisation entitlement adds an item of a higher tier and takes it out of suppressed', () => {
    expect(includedIn('assess', ['reputation_ledger']).has('reputation_ledger')).toBe(true);
    expect(suppressedFor('assess', ['reputation_ledger']).map((s) => s.component)).toEqual([
      // Consortium data like the ledger, granted apart from it.
      'network_velocity',
      'cluster_id',
      'shadow',
    ]);
  });
});
