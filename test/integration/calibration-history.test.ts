import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../infra/clickhouse/migrate.ts';
import { historyRaws } from '../../shared/scoring/calibration/history.ts';
import { VERSION_DEFINITIONS } from '../../shared/scoring/weights.ts';
import { clickhouse } from '../../infra/harness/fixtures.ts';

const DB = 'frs_calibration_history_test';

describe('calibration from the scored population', () => {
  const ch = clickhouse();

  beforeAll(async () => {
    await ch.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await migrate(ch, DB, () => undefined);
    const now = Math.floor(Date.now() / 1000);
    const yesterday = now - 86_400;
    let n = 0;
    const row = (at: number, version: string, phone: string, raw: number, org = 'org_a') => ({
      score_id: `sc_${String(++n).padStart(32, '0')}`,
      org_id: org,
      scored_at: at,
      scored_at_ms: at * 1000,
      tier: 'bureau',
      score_version: version,
      score: 50,
      band: 'minimal',
      request_json: JSON.stringify({ subject: { phone_number: phone } }),
      raw_risk: raw,
      fired_components: raw > 0 ? ['CLI_IMPOSSIBLE'] : [],
    });
    await ch.insert({
      table: `${DB}.scores`,
      format: 'JSONEachRow',
      values: [
        // A hammered number: 50 scores in one day, from two organisations, count once.
        ...Array.from({ length: 50 }, (_, i) =>
          row(now - i, '2026.12.0', '+444012345678', 45, i % 2 ? 'org_a' : 'org_b'),
        ),
        // The same subject on another day counts again.
        row(yesterday, '2026.12.0', '+444012345678', 45),
        row(now, '2026.12.0', '+447400123456', 0),
        // Same points as the candidate under another id: usable.
        row(now, '2026.12.1', '+447400123457', 0),
        // Another version's raw risk is not comparable: skipped and counted.
        row(now, '2026.11.0', '+447400123458', 5),
        // Older than the window.
        row(now - 40 * 86_400, '2026.12.0', '+447400123459', 0),
      ],
    });
  });

  afterAll(async () => {
    await ch.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await ch.close();
  });

  it('counts each subject once per day, across organisations, only under the same points', async () => {
    const candidate = VERSION_DEFINITIONS.find((v) => v.id === '2026.12.1')!;
    const h = await historyRaws(candidate, 30, ch, DB);
    expect(h.versions).toEqual(['2026.12.0', '2026.12.1', '2026.12.2']);
    expect(h.skipped).toBe(1);
    expect(h.rows.map((r) => r.raw).sort((a, b) => a - b)).toEqual([0, 0, 45, 45]);
    expect(h.rows.filter((r) => r.raw === 45).every((r) => r.fired[0] === 'CLI_IMPOSSIBLE')).toBe(true);
  });
});
