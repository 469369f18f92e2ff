import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../infra/clickhouse/migrate.ts';
import { explainKey } from '../../shared/audit/explain-cache.ts';
import { toRow } from '../../services/audit-sink/sink.ts';
import { AuditRecord } from '../../shared/audit/record.ts';
import { ExplainResponse, HealthResponse, ScoreResponse } from '../../shared/contract/response.ts';
import { bandFor, gateBand } from '../../shared/scoring/engine.ts';
import { percentileRank } from '../../shared/scoring/percentile.ts';
import { DEFAULT_VERSION, findVersion } from '../../shared/scoring/versions.ts';
import { clickhouse, explainRedis, orgWithKey, scoreCall } from '../../infra/harness/fixtures.ts';
import { startNode, type InProcessNode } from '../helpers/in-process.ts';
import { serviceEnv } from '../../infra/harness/processes.ts';
import { waitFor } from '../../infra/harness/wait.ts';

const run = promisify(execFile);
/** A version state of this test's own, so nothing else's default changes. */
const KEY = `frs:versions:test:${process.pid}:${Date.now()}`;
const DB = 'frs_versions_test';
// A premium-rate number and a Mullvad VPN server on a network of no known type: exactly NDC and VPN fire.
const SUBJECT = { phone_number: '+449012345678', ip_address: '23.144.160.86' };
/** The as-released default, which the challenger replaces and which is then retired. */
const RELEASED = DEFAULT_VERSION.id;

async function adminVersion(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(process.execPath, ['services/admin/cli.ts', 'version', ...args], {
      env: serviceEnv('services/admin/cli.ts', { SCORE_VERSION_KEY: KEY, CLICKHOUSE_DATABASE: DB }),
    });
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, out: e.stderr };
  }
}

describe('score versions at run time: silent challenger, promotion and retirement on every node', () => {
  const ch = clickhouse();
  const cache = explainRedis();
  let nodes: InProcessNode[] = [];
  let org: Awaited<ReturnType<typeof orgWithKey>>;

  beforeAll(async () => {
    await ch.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await migrate(ch, DB, () => undefined);
    // A long poll: within the test's waits only the announcement can carry a change.
    const env = { SCORE_VERSION_KEY: KEY, CAPABILITY_POLL_S: '120', CLICKHOUSE_DATABASE: DB };
    nodes = await Promise.all([startNode(env), startNode(env)]);
    org = await orgWithKey('bureau');
  }, 240_000);

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await ch.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await ch.close();
    cache.disconnect();
  });

  const scoreOn = async (node: InProcessNode, body: unknown = { subject: SUBJECT }) => {
    const res = await scoreCall(node.url, org.apiKey, body);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return { text, body: ScoreResponse.parse(JSON.parse(text)) };
  };
  const record = async (scoreId: string) =>
    AuditRecord.parse(
      JSON.parse(
        await waitFor('the audit record copy', () => cache.get(explainKey(org.orgId, scoreId)), 30_000),
      ),
    );
  const health = async (node: InProcessNode) =>
    HealthResponse.parse(await (await fetch(`${node.url}/v1/health`)).json()).score_versions;
  const onEveryNode = (what: string, check: (v: Awaited<ReturnType<typeof health>>) => boolean) =>
    waitFor(what, async () => (await Promise.all(nodes.map(health))).every(check), 15_000);

  it('scores the challenger silently, promotes it on both nodes, and old scores still reproduce', async () => {
    // 1. The as-released default, no challenger.
    const before = await scoreOn(nodes[0]!);
    expect(before.body.score_version).toBe(RELEASED);
    const beforeRecord = await record(before.body.score_id);
    expect(beforeRecord.challenger).toBeUndefined();
    expect(beforeRecord.raw_risk).toBe(30 + 15);
    expect(beforeRecord.fired_components).toEqual(['NDC_RANGE_ELEVATED', 'IP_VPN_PROXY']);

    // 2. A challenger set by the admin CLI reaches both nodes; it is in the audit record only.
    expect((await adminVersion('challenger', '--id', '2026.12.1')).code).toBe(0);
    await onEveryNode('the challenger on both nodes', (vs) =>
      vs.some((v) => v.id === '2026.12.1' && v.challenger),
    );
    for (const node of nodes) {
      const s = await scoreOn(node);
      expect(s.body.score_version).toBe(RELEASED);
      expect(s.text).not.toContain('2026.12.1');
      const rec = await record(s.body.score_id);
      const v = findVersion('2026.12.1')!;
      const expected = percentileRank(rec.raw_risk!, v.calibration);
      expect(rec.challenger).toEqual({
        score_version: '2026.12.1',
        score: expected,
        band: gateBand(bandFor(expected, v), s.body.components!, v.gates),
        raw_risk: 45,
      });
      // The audit row the sink writes from it carries the challenger and the raw risk.
      await ch.insert({ table: `${DB}.scores`, values: [toRow(rec)], format: 'JSONEachRow' });
      const rows = await (
        await ch.query({
          query: `SELECT raw_risk, fired_components, challenger_version, challenger_score, challenger_band
                  FROM ${DB}.scores WHERE score_id = '${s.body.score_id}'`,
          format: 'JSONEachRow',
        })
      ).json<Record<string, unknown>>();
      expect(rows).toEqual([
        {
          raw_risk: 45,
          fired_components: ['NDC_RANGE_ELEVATED', 'IP_VPN_PROXY'],
          challenger_version: '2026.12.1',
          challenger_score: expected,
          challenger_band: rec.challenger!.band,
        },
      ]);
    }

    // 3. Promotion: the default on both nodes without a restart; no challenger left.
    // No backtest of it here (test/integration/backtest.test.ts covers that refusal): forced.
    const forced = ['--force', '--reason', 'promotion across nodes under test'];
    expect((await adminVersion('promote', '--id', '2026.12.1', ...forced)).code).toBe(0);
    await onEveryNode('the promotion on both nodes', (vs) =>
      vs.some((v) => v.id === '2026.12.1' && v.default),
    );
    for (const node of nodes) {
      const s = await scoreOn(node);
      expect(s.body.score_version).toBe('2026.12.1');
      expect((await record(s.body.score_id)).challenger).toBeUndefined();
    }

    // 4. A score made under the old default still explains and reproduces.
    const explained = await fetch(`${nodes[1]!.url}/v1/explain/${before.body.score_id}`, {
      headers: { authorization: `Bearer ${org.apiKey}` },
    });
    expect(explained.status).toBe(200);
    const e = ExplainResponse.parse(await explained.json());
    expect(e.score_version).toBe(RELEASED);
    const old = findVersion(RELEASED)!;
    const raw = e.evidence.components.reduce((sum, c) => sum + c.contribution, 0);
    expect(percentileRank(raw, old.calibration)).toBe(before.body.score);
    expect(gateBand(bandFor(before.body.score, old), e.evidence.components, old.gates)).toBe(
      before.body.band,
    );

    // 5. Retirement: refused for the default; the old default retired is a 409 as shadow_version.
    expect((await adminVersion('retire', '--id', '2026.12.1')).code).toBe(2);
    expect((await adminVersion('retire', '--id', RELEASED)).code).toBe(0);
    await onEveryNode('the retirement on both nodes', (vs) =>
      vs.some((v) => v.id === RELEASED && v.status === 'retired'),
    );
    const shadow = await scoreCall(nodes[0]!.url, org.apiKey, {
      subject: SUBJECT,
      options: { shadow_version: RELEASED },
    });
    expect(shadow.status).toBe(409);
    expect((await adminVersion('challenger', '--id', RELEASED)).code).toBe(2);
  }, 180_000);
});
