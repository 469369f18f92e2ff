/**
 * docs/data.md "Band performance and drift": the queries as documented, run on data this test
 * writes, against numbers the test computes on its own from the same data.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../infra/clickhouse/migrate.ts';
import type { ClickHouseClient } from '../../shared/clients/clickhouse.ts';
import { bindParams } from '../../shared/clients/sql.ts';
import { OUTCOME_KINDS, type OutcomeKind } from '../../shared/contract/outcome.ts';
import { Chdb } from '../helpers/chdb.ts';
import { clickhouse } from '../../infra/harness/fixtures.ts';

const DB = 'frs_band_performance_test';
const ORG = 'org_bandperf0000000a1';
const OTHER = 'org_bandperf0000000b2';
const WEEKS = ['2026-10-05', '2026-10-12', '2026-10-19', '2026-10-26'];
const RANGE = { org_id: ORG, from: WEEKS[0]!, to: '2026-11-02' };

/** The ```sql parameters blocks of the "Band performance and drift" section, in order. */
function documented(): { bands: string; challenger: string; psi: string } {
  const doc = readFileSync('docs/data.md', 'utf8');
  const start = doc.indexOf('## Band performance and drift');
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  const [bands, challenger, psi] = [...section.matchAll(/```sql parameters\n([\s\S]*?)```/g)].map((m) =>
    m[1]!.trim(),
  );
  return { bands: bands!, challenger: challenger!, psi: psi! };
}

/** Bin counts per week, chosen so the weeks read stable, moderate shift and major shift in turn. */
const BIN_COUNTS = [
  [10, 10, 10, 10, 10, 10, 10, 10, 10, 10],
  [10, 10, 10, 10, 10, 10, 10, 10, 10, 10],
  [18, 16, 14, 10, 10, 8, 8, 6, 5, 5],
  [0, 0, 0, 0, 0, 10, 20, 20, 25, 25],
];

const band = (score: number) =>
  score < 20 ? 'minimal' : score < 40 ? 'low' : score < 60 ? 'medium' : score < 80 ? 'high' : 'critical';

interface Score {
  score_id: string;
  org_id: string;
  scored_at: string;
  week: string;
  score_version: string;
  score: number;
  band: string;
  /** Outcomes in the order they were reported (the last is the label). */
  outcomes: OutcomeKind[];
}

/** A deterministic pseudo-random sequence (mulberry32), so every run writes the same data. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex = (n: number) => n.toString(16).padStart(32, '0');
const at = (day: string, plusDays: number, sec: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + plusDays * 86_400_000 + sec * 1000)
    .toISOString()
    .slice(0, 19)
    .replace('T', ' ');

function generate() {
  const random = rng(13);
  const scores: Score[] = [];
  let n = 0;
  WEEKS.forEach((week, w) => {
    BIN_COUNTS[w]!.forEach((count, bin) => {
      for (let i = 0; i < count; i++) {
        const score = Math.min(100, bin * 10 + Math.floor(random() * 10) + (bin === 9 && i === 0 ? 10 : 0));
        const outcomes: OutcomeKind[] = [];
        const k = random();
        // About a third of the scores get an outcome; some of them a second one later.
        if (k < 0.35) outcomes.push(OUTCOME_KINDS[Math.floor(random() * OUTCOME_KINDS.length)]!);
        if (k < 0.1) outcomes.push(OUTCOME_KINDS[Math.floor(random() * OUTCOME_KINDS.length)]!);
        scores.push({
          score_id: `sc_${hex(++n)}`,
          org_id: ORG,
          scored_at: at(week, i % 7, 3600 + i),
          week,
          score_version: n % 5 === 0 ? '2026.08.0' : '2026.11.0',
          score,
          band: band(score),
          outcomes,
        });
      }
    });
  });
  return scores;
}

/** Both servers the queries must run on: the dev machines' 18.16 and a current release. */
const SERVERS: [string, () => { ch: ClickHouseClient; close: () => Promise<void> }][] = [
  [
    'ClickHouse 18.16',
    () => {
      const ch = clickhouse();
      return { ch, close: () => ch.close() };
    },
  ],
  [
    'current ClickHouse (chDB)',
    () => {
      const chdb = Chdb.start();
      return { ch: chdb.client(), close: () => chdb.close() };
    },
  ],
];

it('the documented queries filter on the leading sort-key columns of every table they read', () => {
  for (const q of Object.values(documented())) {
    const reads = [...q.matchAll(/\bFROM (scores|outcomes)( FINAL)?\s+WHERE ([^\n]*)/g)];
    expect(reads.length, q).toBe(q.match(/\bFROM\b/g)!.length - q.match(/\bFROM\s*\n?\s*\(/g)!.length);
    for (const [, table, , where] of reads) {
      expect(where, q).toMatch(
        /^org_id = \{org_id:String\} AND toDate\((scored|received)_at\) >= \{from:Date\}/,
      );
      expect(where!.includes(table === 'scores' ? 'scored_at' : 'received_at'), q).toBe(true);
    }
  }
});

describe.each(SERVERS)('band performance and PSI queries of docs/data.md on %s', (_name, connect) => {
  let ch: ClickHouseClient;
  let close: () => Promise<void>;
  const scores = generate();
  const queries = documented();
  const run = async <T>(sql: string, params: Record<string, string> = RANGE) => {
    const rs = await ch.query({
      query: bindParams(sql.replaceAll(/\bFROM (scores|outcomes)\b/g, `FROM ${DB}.$1`), params),
      format: 'JSONEachRow',
    });
    return rs.json<T>();
  };

  beforeAll(async () => {
    ({ ch, close } = connect());
    await ch.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await migrate(ch, DB, () => undefined);
    const rows = scores.map(({ week: _w, outcomes: _o, ...s }) => ({ ...s, tier: 'bureau' }));
    // A re-delivered score (FINAL must collapse it), and another organisation's scores and outcomes.
    rows.push(rows[3]!);
    rows.push({ ...rows[4]!, score_id: `sc_${hex(9_999)}`, org_id: OTHER });
    // A request scored twice (docs/data.md "One row per answer"): its first node died before
    // answering (the lesser id, made first) and its retry was scored again; it counts once.
    const retried = { ...rows[10]!, request_digest: 'e3'.repeat(32) };
    rows[10] = retried;
    rows.push({ ...retried, score_id: `sc_${hex(0)}`, score: 99, band: 'critical' });
    await ch.insert({ table: `${DB}.scores`, values: rows, format: 'JSONEachRow' });

    let id = 0;
    const outcomes = scores.flatMap((s) =>
      s.outcomes.map((outcome, j) => ({
        outcome_id: `oc_${hex(++id)}`,
        org_id: ORG,
        received_at: at(s.scored_at.slice(0, 10), 1 + j, 0),
        occurred_at: at(s.scored_at.slice(0, 10), 1, 0),
        outcome,
        score_id: s.score_id,
      })),
    );
    // A re-delivered outcome, one by subject only, and one of another organisation on our score id.
    outcomes.push(outcomes[0]!);
    outcomes.push({ ...outcomes[1]!, outcome_id: `oc_${hex(++id)}`, score_id: '', outcome: 'chargeback' });
    outcomes.push({ ...outcomes[2]!, outcome_id: `oc_${hex(++id)}`, org_id: OTHER, outcome: 'chargeback' });
    await ch.insert({ table: `${DB}.outcomes`, values: outcomes, format: 'JSONEachRow' });
  });

  afterAll(async () => {
    await ch?.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await close?.();
  });

  it('counts scores, labels and fraud rates per version, band and week', async () => {
    const expected = new Map<string, Record<string, number | string | null>>();
    for (const s of scores) {
      const key = `${s.score_version}|${s.band}|${s.week}`;
      const g = expected.get(key) ?? {
        org_id: ORG,
        score_version: s.score_version,
        band: s.band,
        week: s.week,
        scores: 0,
        ...Object.fromEntries(OUTCOME_KINDS.map((k) => [k, 0])),
        with_outcome: 0,
      };
      (g.scores as number)++;
      const label = s.outcomes.at(-1);
      if (label) {
        (g[label] as number)++;
        (g.with_outcome as number)++;
      }
      expected.set(key, g);
    }
    const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
    for (const g of expected.values()) {
      const fraud = (g.confirmed_fraud as number) + (g.chargeback as number);
      g.fraud_rate_of_reported = g.with_outcome === 0 ? null : round4(fraud / (g.with_outcome as number));
      g.fraud_rate_of_all = round4(fraud / (g.scores as number));
    }
    const rows = await run<Record<string, string | number | null>>(queries.bands);
    const got = rows.map((r) =>
      Object.fromEntries(
        Object.entries(r).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v]),
      ),
    );
    const order = (a: Record<string, unknown>) => `${a.score_version}|${a.band}|${a.week}`;
    expect(got.sort((a, b) => order(a).localeCompare(order(b)))).toEqual(
      [...expected.values()].sort((a, b) => order(a).localeCompare(order(b))),
    );
    // The data must exercise what the query claims: labels of every kind and bands without outcomes.
    expect(got.some((r) => r.fraud_rate_of_reported === null)).toBe(true);
    for (const k of OUTCOME_KINDS)
      expect(
        got.some((r) => (r[k] as number) > 0),
        k,
      ).toBe(true);
  });

  it("computes each week's PSI against the week before, with the usual reading", async () => {
    const shares = (w: number) => {
      const counts = Array.from({ length: 10 }, () => 0);
      const inWeek = scores.filter((s) => s.week === WEEKS[w]);
      for (const s of inWeek) counts[Math.min(9, Math.floor(s.score / 10))]!++;
      return counts.map((c) => Math.max(c / inWeek.length, 0.0001));
    };
    const expected = WEEKS.slice(1).map((week, i) => {
      const [cur, prev] = [shares(i + 1), shares(i)];
      const psi = cur.reduce((sum, a, b) => sum + (a - prev[b]!) * Math.log(a / prev[b]!), 0);
      return { week, psi, reading: psi < 0.1 ? 'stable' : psi <= 0.25 ? 'moderate shift' : 'major shift' };
    });
    const rows = await run<{ org_id: string; week: string; scores: string; psi: number; reading: string }>(
      queries.psi,
    );
    expect(rows.map((r) => r.week)).toEqual(expected.map((e) => e.week));
    rows.forEach((r, i) => {
      expect(r.org_id).toBe(ORG);
      expect(Number(r.scores)).toBe(BIN_COUNTS[i + 1]!.reduce((a, b) => a + b, 0));
      expect(r.psi).toBeCloseTo(expected[i]!.psi, 3);
      expect(r.reading).toBe(expected[i]!.reading);
    });
    expect(rows.map((r) => r.reading)).toEqual(['stable', 'moderate shift', 'major shift']);
  });

  it("ranks the challenger's bands against the same outcomes (when the scores table has a challenger)", async (ctx) => {
    const rs = await ch.query({
      query: `SELECT name FROM system.columns WHERE database = '${DB}' AND table = 'scores' AND name IN ('challenger_version', 'challenger_band')`,
      format: 'JSONEachRow',
    });
    if ((await rs.json()).length < 2) ctx.skip();
    const challengerOrg = 'org_bandperf0000000c3';
    const rows = scores.slice(0, 40).map(({ week: _w, outcomes: _o, ...s }, i) => ({
      ...s,
      org_id: challengerOrg,
      tier: 'bureau',
      challenger_version: '2026.12.0',
      challenger_band: i % 4 === 0 ? '' : band(Math.min(100, s.score + 15)),
    }));
    await ch.insert({ table: `${DB}.scores`, values: rows, format: 'JSONEachRow' });
    let id = 100_000;
    const outcomes = scores.slice(0, 40).flatMap((s) =>
      s.outcomes.map((outcome, j) => ({
        outcome_id: `oc_${hex(++id)}`,
        org_id: challengerOrg,
        received_at: at(s.scored_at.slice(0, 10), 1 + j, 0),
        occurred_at: at(s.scored_at.slice(0, 10), 1, 0),
        outcome,
        score_id: s.score_id,
      })),
    );
    await ch.insert({ table: `${DB}.outcomes`, values: outcomes, format: 'JSONEachRow' });
    const expected = new Map<string, { scores: number; fraud: number; with_outcome: number }>();
    rows.forEach((r, i) => {
      if (r.challenger_band === '') return;
      const key = `${r.challenger_band}|${scores[i]!.week}`;
      const g = expected.get(key) ?? { scores: 0, fraud: 0, with_outcome: 0 };
      g.scores++;
      const label = scores[i]!.outcomes.at(-1);
      if (label) g.with_outcome++;
      if (label === 'confirmed_fraud' || label === 'chargeback') g.fraud++;
      expected.set(key, g);
    });
    const got = await run<Record<string, string>>(queries.challenger, { ...RANGE, org_id: challengerOrg });
    expect(
      new Map(
        got.map((r) => [
          `${r.challenger_band}|${r.week}`,
          {
            scores: Number(r.scores),
            fraud: Number(r.confirmed_fraud) + Number(r.chargeback),
            with_outcome: Number(r.with_outcome),
          },
        ]),
      ),
    ).toEqual(expected);
  });
});
