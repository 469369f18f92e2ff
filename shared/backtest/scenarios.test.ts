import { describe, expect, it } from 'vitest';
import { AuditRecord } from '../audit/record.ts';
import { replay, type StoredComponent } from '../scoring/replay.ts';
import { DEFAULT_VERSION, findVersion } from '../scoring/versions.ts';
import type { ContextEffect } from '../vocabulary/score-terms.ts';
import { PHONE_TAKEOVER, scenarioRecords } from './scenarios.ts';

const CANDIDATE = findVersion('2026.12.4')!;
const HIGH_PLUS = new Set(['high', 'critical']);

/** The band a record replays to under `version`, from what its row keeps (as the backtest reads it). */
function replayed(r: AuditRecord, version = CANDIDATE) {
  const moment = (r.request.context as { collection_point: { moment: string } }).collection_point.moment;
  return replay(
    {
      components: r.evidence.components as StoredComponent[],
      fired: r.fired_components ?? [],
      reports: 0,
      organisations: 0,
      context: true,
      moment,
      ...(r.context_effect ? { effect: r.context_effect as ContextEffect } : {}),
    },
    version,
  ).band;
}

describe('the phone-takeover scenario set', () => {
  const traffic = scenarioRecords(PHONE_TAKEOVER, DEFAULT_VERSION, 'org_scenario', Date.UTC(2026, 10, 1));
  const records = traffic.scores.map((json) => AuditRecord.parse(JSON.parse(json)));
  const fraud = new Set(
    traffic.outcomes.filter((o) => o.outcome === 'confirmed_fraud').map((o) => o.score_id),
  );

  it('is valid audit records with a reported outcome each, the takeovers under 1 %', () => {
    expect(records).toHaveLength(PHONE_TAKEOVER.cases.reduce((n, c) => n + c.count, 0));
    expect(traffic.outcomes.map((o) => o.score_id)).toEqual(records.map((r) => r.score_id));
    expect(new Set(records.map((r) => r.request.subject.phone_number)).size).toBe(records.length);
    expect(fraud.size).toBe(60);
    expect(fraud.size / records.length).toBeLessThan(0.01);
    expect(records.every((r) => r.phone_lookup?.outcome === 'answered')).toBe(true);
  });

  it('puts every takeover at high or above under 2026.12.4 and none under the default it was scored with', () => {
    const takeovers = records.filter((r) => fraud.has(r.score_id));
    expect(takeovers.every((r) => !HIGH_PLUS.has(r.response.band))).toBe(true);
    expect(takeovers.every((r) => replayed(r, DEFAULT_VERSION) === r.response.band)).toBe(true);
    expect(takeovers.map((r) => replayed(r)).filter((b) => !HIGH_PLUS.has(b))).toEqual([]);
    const codes = new Set(takeovers.flatMap((r) => r.fired_components ?? []));
    expect([...codes].sort()).toEqual([
      'PHONE_PORTED_AT_TAKEOVER_MOMENT',
      'PHONE_SIM_SWAP_AT_TAKEOVER_MOMENT',
    ]);
  });

  it('leaves the numbers the network says nothing recent of where the default puts them', () => {
    const quiet = records.filter((r) => (r.fired_components ?? []).length === 0);
    expect(quiet.length).toBeGreaterThan(7000);
    expect(quiet.filter((r) => replayed(r) !== r.response.band)).toEqual([]);
  });
});
