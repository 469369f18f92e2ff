import { describe, expect, it } from 'vitest';
import { CAPABILITY_DEFINITIONS } from '../../shared/capabilities/index.ts';
import { PUBLISHED, staleDataLines } from './stale-data.ts';

const NOW = Date.parse('2026-11-27T12:00:00Z');

describe('the start banner on stale data', () => {
  it('says nothing when every data set is within its maximum age', () => {
    expect(
      staleDataLines(
        { ip_tor_exit: { data_as_of: '2026-11-27T10:00:00Z', max_data_age_s: 86_400, stale: false } },
        NOW,
      ),
    ).toEqual([]);
  });

  it('names each stale data set with its age and maximum, and one command that refreshes them', () => {
    const lines = staleDataLines(
      {
        ip_tor_exit: { data_as_of: '2026-08-22T16:18:35Z', max_data_age_s: 86_400, stale: true },
        ip_vpn_proxy: { data_as_of: '2026-06-17T19:00:00Z', max_data_age_s: 14 * 86_400, stale: true },
        ndc_range_risk: { data_as_of: '2026-11-01T00:00:00Z', max_data_age_s: 90 * 86_400, stale: false },
        reputation_ledger: { data_as_of: '2026-11-21T14:12:13Z', max_data_age_s: 2 * 86_400, stale: true },
      },
      NOW,
    );
    const text = lines.join('\n');
    expect(text).toMatch(/ip_tor_exit +data of 2026-08-22, 96 days old \(maximum 1 day\)\n/);
    // Its lists name publishers, whole systems included: nothing ties it to a release.
    expect(text).toMatch(/ip_vpn_proxy +data of 2026-06-17, 162 days old \(maximum 14 days\)\n/);
    expect(text).not.toContain('ndc_range_risk');
    // Stale, but with no publisher to refresh it from: named, and not in the command.
    expect(text).toMatch(
      /reputation_ledger +data of 2026-11-21, 5 days old \(maximum 2 days\); changes only with a release: the consortium's/,
    );
    expect(lines.at(-1)).not.toContain('reputation_ledger');
    const command = lines.at(-1)!.trim();
    expect(command).toMatch(
      /^npm run feeds:update -- --from https:\/\/check\.torproject\.org\/torbulkexitlist --from /,
    );
    expect(command).toMatch(
      /&& npm run --silent refresh -- ip_tor_exit && npm run --silent refresh -- ip_vpn_proxy$/,
    );
  });

  it("derives each capability's publishers from its declarations, and says why a feed has none", () => {
    for (const def of CAPABILITY_DEFINITIONS) {
      const published = PUBLISHED.get(def.key)!;
      for (const source of Object.values(def.sources)) {
        if (source.publishers.length === 0) {
          expect(source.unpublished, `${def.key}: a source with no publisher says why`).toBeTruthy();
          expect(published.limit).toContain(source.unpublished);
        } else if (source.layout === 'file')
          expect(published.from).toEqual(expect.arrayContaining([...source.publishers]));
      }
    }
  });
});
