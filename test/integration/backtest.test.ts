/**
 * Backtests on real ClickHouse: scores made through the API (an in-process node, the engine the
 * service runs), their audit records written as the sink writes them, one in three re-delivered;
 * replayed under the version that made them they give back every stored raw risk, score and
 * band, and under the candidate the band the API itself gives as `shadow` for the same request.
 * Then `admin version promote` reads the backtests: refused without one, with a stale one, with
 * one that failed a cap, and without a reason when forced; every promotion is recorded.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../infra/clickhouse/migrate.ts';
import { toRow } from '../../services/audit-sink/sink.ts';
import { explainKey } from '../../shared/audit/explain-cache.ts';
import { AuditRecord } from '../../shared/audit/record.ts';
import { BANDS, type Figures } from '../../shared/backtest/figures.ts';
import { writeReport } from '../../shared/backtest/report.ts';
import { runBacktest } from '../../shared/backtest/run.ts';
import { documentedQueries, latestRun, newRunId, saveRun } from '../../shared/backtest/store.ts';
import type { Band, Tier } from '../../shared/vocabulary/score-terms.ts';
import { ScoreResponse } from '../../shared/contract/response.ts';
import { newOutcomeId } from '../../shared/ids.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { DEFAULT_VERSION, findVersion } from '../../shared/scoring/versions.ts';
import { clickhouse, explainRedis, orgWithKey, redis, scoreCall } from '../../infra/harness/fixtures.ts';
import { serviceEnv } from '../../infra/harness/processes.ts';
import { waitFor } from '../../infra/harness/wait.ts';
import { startNode, type InProcessNode } from '../helpers/in-process.ts';

const run = promisify(execFile);
const DB = 'frs_backtest_test';
const KEY = `frs:versions:test:backtest:${process.pid}:${Date.now()}`;
const CANDIDATE = findVersion('2026.12.1')!;
const BASELINE = DEFAULT_VERSION;

/**
 * Subjects whose evidence differs: premium-rate range, VPN, Tor exit, hosting, bogon, impossible
 * number, plain, and Tor-operator space (IP_TOR_OPERATOR_NETWORK, which replayed as nothing until
 * replay scored stored findings instead of rebuilding facts).
 */
const SUBJECTS = [
  { phone_number: '+449012345678', ip_address: '23.144.160.86' },
  { phone_number: '+447911123456' },
  { ip_address: '171.25.193.25' },
  { ip_address: '1.12.0.10' },
  { ip_address: '10.1.2.3' },
  { phone_number: '+4479111' },
  { phone_number: '+447911123456', ip_address: '81.2.69.160' },
  { phone_number: '+2348031234567', ip_address: '171.25.193.25' },
  { ip_address: '109.70.100.50' },
  { phone_number: '+447911123456', ip_address: '204.8.99.20' },
];
const CONTEXTS = [
  undefined,
  {
    sector: 'remittance',
    geography: { operating_countries: ['GB'] },
    collection_point: { moment: 'payment' },
  },
  {
    sector: 'remittance',
    geography: { diaspora_corridors: ['NG', 'GB'] },
    collection_point: { moment: 'onboarding' },
    risk_posture: 'recall_weighted',
  },
  { sector: 'lending', geography: {}, collection_point: {}, risk_posture: 'precision_weighted' },
];

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const WINDOW = { from: day(Date.now() - 86_400_000), to: day(Date.now() + 86_400_000) };

async function admin(env: Record<string, string>, ...args: string[]) {
  try {
    const { stdout } = await run(process.execPath, ['services/admin/cli.ts', 'version', ...args], {
      env: serviceEnv('services/admin/cli.ts', { SCORE_VERSION_KEY: KEY, CLICKHOUSE_DATABASE: DB, ...env }),
    });
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, out: e.stderr };
  }
}

describe('backtest: replay of retained scores under a candidate, read by promotion', () => {
  const ch = clickhouse();
  const cache = explainRedis();
  let node: InProcessNode;
  /** Per distinct score: the band the API returned, its shadow band under the candidate, its label. */
  const made: { band: Band; shadow: Band; label: string }[] = [];
  let figures: Figures;

  beforeAll(async () => {
    await ch.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await migrate(ch, DB, () => undefined);
    node = await startNode({ SCORE_VERSION_KEY: KEY, CLICKHOUSE_DATABASE: DB, CAPABILITY_POLL_S: '120' });
    const orgs: { orgId: string; apiKey: string; tier: Tier }[] = [];
    const r = redis();
    const store = new OrgStore(r);
    for (const tier of ['verify', 'assess', 'bureau'] as const) {
      const o = await orgWithKey(tier, { rateRps: 1000 });
      // Every tier may ask for the shadow here: the candidate's band as the API gives it.
      await store.updateOrg(o.orgId, { entitlements: ['shadow'] });
      orgs.push({ ...o, tier });
    }
    r.disconnect();

    const rows: Record<string, unknown>[] = [];
    const outcomes: Record<string, unknown>[] = [];
    let i = 0;
    for (const org of orgs)
      for (const subject of SUBJECTS)
        for (const context of CONTEXTS) {
          const body = {
            subject,
            ...(context ? { context } : {}),
            options: { shadow_version: CANDIDATE.id },
          };
          const res = await scoreCall(node.url, org.apiKey, body);
          const text = await res.text();
          expect(res.status, text).toBe(200);
          const s = ScoreResponse.parse(JSON.parse(text));
          const rec = AuditRecord.parse(
            JSON.parse(
              await waitFor(
                'the audit record copy',
                () => cache.get(explainKey(org.orgId, s.score_id)),
                30_000,
              ),
            ),
          );
          const row = toRow(rec);
          rows.push(row);
          if (i % 3 === 0) rows.push(row); // re-delivered: the audit stream is at least once
          const label = ['', 'confirmed_fraud', 'not_fraud', 'chargeback', ''][i % 5]!;
          if (label) {
            const now = Date.now();
            const outcome = (kind: string, ms: number) => ({
              outcome_id: newOutcomeId(ms),
              org_id: org.orgId,
              received_at: Math.floor(ms / 1000),
              received_at_ms: ms,
              occurred_at: Math.floor(ms / 1000),
              outcome: kind,
              score_id: s.score_id,
            });
            // An earlier, superseded report: the latest one labels the score.
            outcomes.push(outcome('suspected_fraud', now - 5), outcome(label, now));
          }
          made.push({ band: s.band, shadow: s.shadow!.band, label });
          i++;
        }
    await ch.insert({ table: `${DB}.scores`, values: rows, format: 'JSONEachRow' });
    await ch.insert({ table: `${DB}.outcomes`, values: outcomes, format: 'JSONEachRow' });
    figures = await runBacktest({
      ch,
      database: DB,
      candidate: CANDIDATE,
      baseline: BASELINE,
      window: WINDOW,
    });
  }, 300_000);

  afterAll(async () => {
    await node?.stop();
    await ch.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await ch.close();
    cache.disconnect();
    const r = redis();
    await r.del(KEY);
    r.disconnect();
  });

  it('replays every score under its own version exactly, counting re-delivered rows once', async () => {
    const rs = await ch.query({ query: `SELECT count() AS n FROM ${DB}.scores`, format: 'JSONEachRow' });
    const [raw] = await rs.json<{ n: string }>();
    expect(Number(raw!.n)).toBeGreaterThan(made.length);
    expect(figures.scores).toBe(made.length);
    expect(figures.reproduced).toBe(made.length);
    expect(figures.unknown_version).toBe(0);
    // Every row here keeps its context's effect before gates (context_effect, migration 010), the
    // verify rows too, whose response has no context_applied: none is inferred from the stored band,
    // which is ambiguous where a gate or the band's end hid the shift. Only rows older than the
    // column are inferred (shared/backtest/figures.test.ts).
    expect(figures.context_inferred + figures.context_ambiguous).toBe(0);
    const stored = Object.fromEntries(BANDS.map((b) => [b, made.filter((m) => m.band === b).length]));
    expect(Object.fromEntries(BANDS.map((b) => [b, figures.baseline.bands[b].scores]))).toEqual(stored);
  });

  it('gives under the candidate the bands the API gives as shadow, and moves them accordingly', () => {
    const scoresWhere = (p: (m: (typeof made)[number]) => boolean) => made.filter(p).length;
    for (const b of BANDS) {
      expect(figures.candidate.bands[b].scores, b).toBe(scoresWhere((m) => m.shadow === b));
      for (const to of BANDS)
        expect(figures.movement[b][to], `${b} -> ${to}`).toBe(
          scoresWhere((m) => m.band === b && m.shadow === to),
        );
    }
    // Outcomes by the latest report of each score.
    for (const b of BANDS) {
      const fraud = scoresWhere(
        (m) => m.shadow === b && (m.label === 'confirmed_fraud' || m.label === 'chargeback'),
      );
      expect(figures.candidate.bands[b].fraud, b).toBe(fraud);
      expect(figures.candidate.bands[b].not_fraud, b).toBe(
        scoresWhere((m) => m.shadow === b && m.label === 'not_fraud'),
      );
    }
    // The subjects are chosen risky: the caps are meant to fail here (the refusal below needs it).
    expect(figures.candidate.caps_pass).toBe(false);
  });

  it('writes the report and its rows, and finds the latest run', async () => {
    const meta = {
      run_id: newRunId(),
      ran_at: new Date(),
      candidate: CANDIDATE.id,
      baseline: BASELINE.id,
      ...WINDOW,
      org_id: '',
    };
    const dir = mkdtempSync(join(tmpdir(), 'frs-backtest-'));
    // With PNGs: resvg rejects malformed SVG, which a browser might forgive.
    const report = await writeReport(dir, meta, figures, true);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain(meta.run_id);
    expect(report.files.filter((f) => f.endsWith('.svg'))).toHaveLength(3);
    expect(report.files.filter((f) => f.endsWith('.png'))).toHaveLength(3);
    expect(await saveRun(ch, DB, meta, figures)).toBeGreaterThan(100);
    // The queries docs/data.md gives data teams, as written but for the database and run id.
    const [runs, shares] = documentedQueries(readFileSync('docs/data.md', 'utf8')).map((q) =>
      q.replaceAll('FROM backtests', `FROM ${DB}.backtests`).replace(/bt_[0-9a-f]{32}/, meta.run_id),
    );
    const listed = await (await ch.query({ query: runs!, format: 'JSONEachRow' })).json<{ run_id: string }>();
    expect(listed.map((r) => r.run_id)).toEqual([meta.run_id]);
    const side = await (
      await ch.query({ query: shares!, format: 'JSONEachRow' })
    ).json<Record<string, number>>();
    expect(side).toHaveLength(5);
    for (const row of side) {
      const band = row.band as unknown as Band;
      expect(row.candidate_share).toBeCloseTo(figures.candidate.bands[band].share, 9);
      expect(row.baseline_share).toBeCloseTo(figures.baseline.bands[band].share, 9);
    }
    const latest = await latestRun(ch, DB, CANDIDATE.id, BASELINE.id);
    expect(latest).toMatchObject({
      run_id: meta.run_id,
      window: { ...WINDOW, org_id: '' },
      caps_pass: false,
    });
    expect(latest!.scores).toBe(made.length);
  });

  it('refuses a promotion without a recent backtest that passed the caps, unless forced with a reason', async () => {
    await ch.command({ query: `TRUNCATE TABLE ${DB}.backtests` });
    const promote = (env: Record<string, string>, ...extra: string[]) =>
      admin(env, 'promote', '--id', CANDIDATE.id, ...extra);

    const none = await promote({});
    expect(none.code).toBe(2);
    expect(none.out).toContain('no backtest');

    // A passing run three days old: too old at BACKTEST_MAX_AGE_DAYS=2.
    const passing: Figures = {
      ...figures,
      candidate: {
        ...figures.candidate,
        caps_pass: true,
        caps: {
          critical: { share: 0.005, max: 0.01, pass: true },
          high_plus: { share: 0.03, max: 0.05, pass: true },
          medium_plus: { share: 0.1, max: 0.15, pass: true },
        },
      },
    };
    const old = Date.now() - 3 * 86_400_000;
    const base = { candidate: CANDIDATE.id, baseline: BASELINE.id, ...WINDOW, org_id: '' };
    await saveRun(ch, DB, { ...base, run_id: newRunId(old), ran_at: new Date(old) }, passing);
    const stale = await promote({ BACKTEST_MAX_AGE_DAYS: '2' });
    expect(stale.code).toBe(2);
    expect(stale.out).toMatch(/is 3(\.\d+)? days old/);

    // The latest run failed the caps.
    const failedRun = newRunId();
    await saveRun(ch, DB, { ...base, run_id: failedRun, ran_at: new Date() }, figures);
    const failed = await promote({});
    expect(failed.code).toBe(2);
    expect(failed.out).toContain('failed the score quality caps');
    // The refusal shows the backtest it read: its run, date and window.
    expect(failed.out).toContain(`latest backtest ${failedRun} ran `);
    expect(failed.out).toContain(`over scores from ${WINDOW.from} to ${WINDOW.to}`);

    expect((await promote({}, '--force')).code).toBe(2);
    const forced = await promote({}, '--force', '--reason', 'caps measured on a skewed test population');
    expect(forced.code, forced.out).toBe(0);
    const out = JSON.parse(forced.out) as { default: string; backtest: { run_id: string; window: unknown } };
    expect(out.default).toBe(CANDIDATE.id);
    expect(out.backtest).toMatchObject({ run_id: failedRun, window: { ...WINDOW, org_id: '' } });

    // Back to the baseline, on a fresh passing backtest: promoted, not forced.
    const back = newRunId();
    await saveRun(
      ch,
      DB,
      { ...base, candidate: BASELINE.id, baseline: CANDIDATE.id, run_id: back, ran_at: new Date() },
      { ...passing, candidate: { ...passing.candidate, version: BASELINE.id } },
    );
    const ok = await admin({}, 'promote', '--id', BASELINE.id);
    expect(ok.code, ok.out).toBe(0);

    const rs = await ch.query({
      query: `SELECT version, previous_default, backtest_run_id, forced, reason FROM ${DB}.version_promotions ORDER BY promoted_at, forced DESC`,
      format: 'JSONEachRow',
    });
    expect(await rs.json()).toEqual([
      {
        version: CANDIDATE.id,
        previous_default: BASELINE.id,
        backtest_run_id: failedRun,
        forced: 1,
        reason: 'caps measured on a skewed test population',
      },
      { version: BASELINE.id, previous_default: CANDIDATE.id, backtest_run_id: back, forced: 0, reason: '' },
    ]);
  });
});
