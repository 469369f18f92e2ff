/**
 * Organisations' allow/deny lists end to end on the real stack (docs/capabilities.md "Organisation
 * lists"): two API nodes (spawned, as the API's Redis user) hold every list in memory; a change
 * made through the store or the admin CLI reaches both nodes' scoring within 5 s; a restarted node
 * loads them again; a node that cannot read one organisation's lists scores it with `org_lists`
 * degraded and every other organisation as before; every change is a row of `list_changes`
 * (copied by the audit sink from the outbox in Redis); a 100,000-entry CSV is applied whole, or
 * refused whole for one bad line; and lists never touch the ledger or network velocity.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listCsv, parseListCsv } from '../../shared/capabilities/org-lists/csv.ts';
import { parseListEntry } from '../../shared/capabilities/org-lists/entry.ts';
import type { ListEntryInput } from '../../shared/capabilities/org-lists/types.ts';
import { readCounts } from '../../shared/capabilities/network-velocity/counter.ts';
import { ledgerVotesKey } from '../../shared/capabilities/ledger-votes.ts';
import { SubjectKeys } from '../../shared/capabilities/subject-key.ts';
import { createClickHouse } from '../../shared/clients/clickhouse.ts';
import type { ScoreResponse } from '../../shared/contract/response.ts';
import { LISTS_CHANGED_CHANNEL, listKey, listOutboxKey, listVersionKey } from '../../shared/orgs/keyspace.ts';
import { OrgListStore } from '../../shared/orgs/lists-store.ts';
import { BANDS, type Band } from '../../shared/vocabulary/score-terms.ts';
import { unlinkPrefix } from '../../infra/harness/feed-server.ts';
import { cfg, freshMobile, orgWithKey, redis, scoreCall } from '../../infra/harness/fixtures.ts';
import {
  serviceEnv,
  startApi,
  startSink,
  waitFor,
  type ApiNode,
  type Service,
} from '../../infra/harness/processes.ts';
import { sinkGroupAtEnd } from '../../infra/harness/sink-group.ts';
import { publishSnapshots } from '../../infra/harness/snapshots.ts';
import { sample, scrape } from '../helpers/metrics.ts';

const exec = promisify(execFile);
const run = randomUUID().slice(0, 8);
const capPrefix = `frs:cap:test-lists-${run}`;
const env = {
  CAPABILITY_KEY_PREFIX: capPrefix,
  BULLMQ_PREFIX: `frs-test-lists-${run}`,
  CAPABILITY_POLL_S: '1',
};
const DB = cfg.CLICKHOUSE_DATABASE;
const ACTOR = 'operator:lists-it';
/** A GB access-network address: an ordinary subject, which only an organisation's list moves. */
const SUBJECT_IP = '81.2.69.160';
const rank = (b: Band) => BANDS.indexOf(b);

type Org = Awaited<ReturnType<typeof orgWithKey>>;

describe('organisation lists', () => {
  const r = redis();
  const store = new OrgListStore(r);
  const ch = createClickHouse(cfg.CLICKHOUSE_URL);
  const nodes: ApiNode[] = [];
  let sink: Service;
  let a: Org;
  let b: Org;
  let cli: Org | undefined;
  /** Organisations a test made lists for, removed at the end. */
  const others: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'frs-lists-it-'));

  beforeAll(async () => {
    await publishSnapshots(env);
    nodes.push(await startApi(env), await startApi(env));
    sink = startSink({
      ...(await sinkGroupAtEnd()),
      ...env,
      AUDIT_SINK_LIST_CHANGES: 'true',
      AUDIT_SINK_VELOCITY: 'true',
    });
    [a, b] = await Promise.all([
      orgWithKey('bureau', { rateRps: 1000, credits: 1_000_000 }),
      orgWithKey('bureau', { rateRps: 1000, credits: 1_000_000 }),
    ]);
  }, 240_000);

  afterAll(async () => {
    await Promise.all([sink?.stop(), ...nodes.map((n) => n.stop())]);
    for (const org of [a?.orgId, b?.orgId, cli?.orgId, ...others].filter((o) => o !== undefined))
      await r.del(listKey(org), listVersionKey(org), listOutboxKey(org));
    await unlinkPrefix(r, capPrefix);
    await unlinkPrefix(r, env.BULLMQ_PREFIX);
    r.disconnect();
    await ch.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function score(node: ApiNode, org: Org, subject: Record<string, string>): Promise<ScoreResponse> {
    const res = await scoreCall(node.url, org.apiKey, { subject });
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as ScoreResponse;
  }
  const ip = (node: ApiNode, org: Org = a) => score(node, org, { ip_address: SUBJECT_IP });
  const entry = (input: Partial<ListEntryInput>): ListEntryInput =>
    parseListEntry({ kind: 'ip', value: SUBJECT_IP, effect: 'deny', reason: 'it', ...input }, new Date());

  /** Waits until every node answers as `done` says; how long after `since` the last one did. */
  async function onEveryNode(since: number, what: string, done: (s: ScoreResponse) => boolean) {
    const took = await Promise.all(
      nodes.map((n) =>
        waitFor(what, async () => (done(await ip(n)) ? Date.now() - since : undefined), 15_000, 100),
      ),
    );
    return Math.max(...took);
  }
  const elevated = (s: ScoreResponse) =>
    s.context_applied?.effect === 'band_elevated' && rank(s.band) >= rank('high');
  const reduced = (s: ScoreResponse) =>
    s.context_applied?.effect === 'band_reduced' && rank(s.band) <= rank('low');

  async function admin(...args: string[]): Promise<{ code: number; out: string; err: string }> {
    const entry = 'services/admin/cli.ts';
    try {
      const { stdout, stderr } = await exec(process.execPath, [entry, 'list', ...args], {
        env: serviceEnv(entry, env),
        maxBuffer: 64 * 1024 * 1024,
      });
      return { code: 0, out: stdout, err: stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, out: e.stdout, err: e.stderr };
    }
  }

  it('an add, a replace and a remove each reach both nodes within 5 s, for that organisation only', async () => {
    const before = await ip(nodes[0]!, b);
    let since = Date.now();
    await store.add(a.orgId, [entry({})], ACTOR);
    const denied = await onEveryNode(since, 'deny on both nodes', elevated);
    since = Date.now();
    await store.replace(a.orgId, [entry({ kind: 'cidr', value: '81.2.69.0/24', effect: 'allow' })], ACTOR);
    const allowed = await onEveryNode(since, 'allow on both nodes', reduced);
    since = Date.now();
    await store.remove(a.orgId, ['cidr:81.2.69.0/24'], ACTOR);
    const removed = await onEveryNode(
      since,
      'no entry on both nodes',
      (s) => s.context_applied === undefined,
    );
    console.info(`org lists: propagation to both nodes ${denied} / ${allowed} / ${removed} ms`);
    for (const ms of [denied, allowed, removed]) expect(ms).toBeLessThan(5_000);
    // The other organisation's answer never moved.
    const after = await ip(nodes[1]!, b);
    expect({ band: after.band, context: after.context_applied }).toEqual({
      band: before.band,
      context: before.context_applied,
    });
  });

  it('the admin CLI adds, shows, exports and removes, as an operator', async () => {
    const org = (cli = await orgWithKey('verify')).orgId;
    const operator = ['--operator', 'lists-it'];
    const asn = ['--org', org, '--kind', 'asn', '--value', '64496'];
    const added = await admin('add', ...asn, '--effect', 'deny', '--reason', 'cli test', ...operator);
    expect(added, added.err).toMatchObject({ code: 0 });
    expect(JSON.parse(added.out)).toMatchObject({ added: { kind: 'asn', value: 'AS64496' } });
    const shown = JSON.parse((await admin('show', '--org', org, '--kind', 'asn')).out);
    expect(shown.entries).toMatchObject([{ value: 'AS64496', added_by: 'operator:lists-it' }]);
    expect((await admin('export', '--org', org)).out).toBe(listCsv(await store.list(org)));
    // Refused with what is wrong and the usage; nothing changes.
    const version = await store.version(org);
    const bad = await admin('add', '--org', org, '--kind', 'ip', '--value', '300.1.1.1', '--effect', 'deny');
    expect(bad).toMatchObject({ code: 2, err: expect.stringMatching(/missing --reason/) });
    const badValue = await admin(
      'add',
      ...['--org', org, '--kind', 'ip', '--value', '300.1.1.1', '--effect', 'deny', '--reason', 'r'],
      ...operator,
    );
    expect(badValue).toMatchObject({ code: 2, err: expect.stringMatching(/value/) });
    const noOperator = await admin('remove', ...asn);
    expect(noOperator.err).toMatch(/missing --operator/);
    expect(await store.version(org)).toBe(version);
    const removed = await admin('remove', ...asn, ...operator);
    expect(JSON.parse(removed.out)).toMatchObject({ removed: { kind: 'asn', value: 'AS64496' } });
    expect(await store.list(org)).toEqual([]);
  });

  it('every change is a row of list_changes: who, when, what', async () => {
    const org = (await orgWithKey('verify')).orgId;
    const cidr = entry({ kind: 'cidr', value: '81.2.69.0/24', effect: 'allow' });
    await store.add(org, [entry({})], 'key:key_0123456789abcdef');
    await store.replace(org, [entry({}), cidr], 'user:staff@example.test');
    await store.remove(org, ['cidr:81.2.69.0/24'], ACTOR);
    type Row = {
      action: string;
      actor: string;
      kind: string;
      value: string;
      effect: string;
      changed_at: string;
    };
    const rowsOf = async (orgId: string, n: number) =>
      waitFor(
        `${n} changes of ${orgId} in ClickHouse`,
        async () => {
          const rs = await ch.query({
            query:
              `SELECT action, actor, kind, value, effect, entries, entries_before, changed_at ` +
              `FROM ${DB}.list_changes FINAL WHERE org_id = '${orgId}' ORDER BY changed_at, change_id`,
            format: 'JSONEachRow',
          });
          const out = await rs.json<Row>();
          return out.length >= n ? out : undefined;
        },
        30_000,
        250,
      );
    const rows = await rowsOf(org, 3);
    const byAction = Object.fromEntries(rows.map((x) => [x.action, x]));
    expect(rows).toHaveLength(3);
    expect(byAction.add).toMatchObject({
      actor: 'key:key_0123456789abcdef',
      kind: 'ip',
      value: SUBJECT_IP,
      effect: 'deny',
    });
    expect(byAction.replace).toMatchObject({
      actor: 'user:staff@example.test',
      kind: '',
      entries: 2,
      entries_before: 1,
    });
    expect(byAction.remove).toMatchObject({
      actor: ACTOR,
      kind: 'cidr',
      value: '81.2.69.0/24',
      effect: 'allow',
    });
    for (const x of rows)
      expect(Math.abs(Date.now() - Date.parse(`${x.changed_at}Z`))).toBeLessThan(10 * 60_000);
    // The admin CLI's changes too.
    if (cli) {
      const cliRows = await rowsOf(cli.orgId, 2);
      expect(cliRows.map((x) => [x.action, x.actor, x.value])).toEqual([
        ['add', 'operator:lists-it', 'AS64496'],
        ['remove', 'operator:lists-it', 'AS64496'],
      ]);
    }
    // Copied, then deleted from Redis: the outbox keeps nothing ClickHouse has.
    await waitFor('the outbox emptied', async () => (await r.xlen(listOutboxKey(org))) === 0, 10_000);
    await r.del(listKey(org), listVersionKey(org), listOutboxKey(org));
  });

  it('a restarted node loads the lists again', async () => {
    await store.add(a.orgId, [entry({})], ACTOR);
    await nodes[0]!.stop();
    nodes[0] = await startApi(env);
    expect(sample(await scrape(nodes[0].url), 'frs_org_lists_entries')).toBeGreaterThanOrEqual(1);
    expect(elevated(await ip(nodes[0]))).toBe(true);
  });

  it('a node that cannot read one organisation’s lists scores it degraded, and the others as before', async () => {
    const c = await orgWithKey('bureau', { rateRps: 1000 });
    try {
      await store.add(c.orgId, [entry({ effect: 'allow' })], ACTOR);
      await store.add(a.orgId, [entry({})], ACTOR);
      // Its entries become unreadable (not a hash any more); the nodes are told to reload.
      // Its own entry in force on the node (the gauges count every organisation on the shared Redis).
      await waitFor('c loaded', async () => reduced(await ip(nodes[1]!, c)));
      await r.del(listKey(c.orgId));
      await r.set(listKey(c.orgId), 'not a list');
      await r.publish(LISTS_CHANGED_CHANNEL, c.orgId);
      await waitFor(
        'the node reporting it',
        async () => sample(await scrape(nodes[1]!.url), 'frs_org_lists_degraded_organisations')! >= 1,
        10_000,
        100,
      );
      const degraded = await ip(nodes[1]!, c);
      expect(degraded.degraded_sources).toContain('org_lists');
      // The view it held stays in force, marked degraded; never another organisation's lists.
      expect(reduced(degraded)).toBe(true);
      const other = await ip(nodes[1]!, a);
      expect(other.degraded_sources).not.toContain('org_lists');
      expect(elevated(other)).toBe(true);
    } finally {
      await r.del(listKey(c.orgId), listVersionKey(c.orgId), listOutboxKey(c.orgId));
      await r.srem('frs:lists:orgs', c.orgId);
    }
  });

  it('a 100,000-line CSV is refused whole for one bad line, and applied whole without it', async () => {
    const d = await orgWithKey('bureau', { rateRps: 1000 });
    others.push(d.orgId);
    const lines = ['kind,value,effect,reason,expires_at'];
    for (let i = 0; i < 99_999; i++)
      lines.push(`ip,10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255},deny,bulk,`);
    lines.push(`ip,${SUBJECT_IP},deny,the subject,`);
    const good = `${lines.join('\n')}\n`;
    const goodFile = join(dir, 'good.csv');
    const badFile = join(dir, 'bad.csv');
    writeFileSync(goodFile, good);
    writeFileSync(
      badFile,
      `${[...lines.slice(0, 50_000), 'ip,10.999.0.1,deny,bulk,', ...lines.slice(50_001)].join('\n')}\n`,
    );
    await store.add(d.orgId, [entry({ kind: 'asn', value: 'AS64497' })], ACTOR);
    const import_ = (file: string) =>
      admin('import', '--org', d.orgId, '--file', file, '--operator', 'lists-it');

    const refused = await import_(badFile);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/1 bad line; nothing changed/);
    expect(refused.err).toMatch(/line 50001: value/);
    expect(await store.version(d.orgId)).toBe(1);
    expect(await store.list(d.orgId)).toHaveLength(1);

    const started = Date.now();
    const applied = await import_(goodFile);
    const importMs = Date.now() - started;
    expect(applied.code, applied.err).toBe(0);
    expect(JSON.parse(applied.out)).toMatchObject({ version: 2, before: 1, after: 100_000 });
    expect(await store.list(d.orgId)).toHaveLength(100_000);
    const loaded = await Promise.all(
      nodes.map((n) =>
        waitFor(
          '100,000 entries on the node',
          async () => {
            const held = sample(await scrape(n.url), 'frs_org_lists_entries')!;
            return held >= 100_000 ? Date.now() - started : undefined;
          },
          30_000,
          100,
        ),
      ),
    );
    console.info(
      `org lists: 100,000-line import ${importMs} ms (CLI start, parse, write); held by both nodes after ${Math.max(...loaded)} ms`,
    );
    expect(importMs).toBeLessThan(30_000);
    // The export reads back as the same list.
    const out = join(dir, 'export.csv');
    expect((await admin('export', '--org', d.orgId, '--out', out)).code).toBe(0);
    const back = parseListCsv(readFileSync(out, 'utf8'), new Date());
    expect(back.ok && back.entries.length).toBe(100_000);
    for (const n of nodes) expect(elevated(await score(n, d, { ip_address: SUBJECT_IP }))).toBe(true);
  });

  it('lists never feed the ledger or network velocity', async () => {
    const phone = freshMobile();
    const digest = SubjectKeys.fromConfig(cfg).key(`phone:${phone}`);
    const velocity = async () => (await readCounts(r, capPrefix, digest)).organisations[2];
    await store.add(b.orgId, [entry({ kind: 'phone', value: phone })], ACTOR);
    await store.remove(b.orgId, [`phone:${phone}`], ACTOR);
    await store.add(b.orgId, [entry({ kind: 'phone', value: phone })], ACTOR);
    // A list change writes no count and no vote.
    expect(await velocity()).toBe(0);
    expect(await r.exists(ledgerVotesKey(capPrefix, digest))).toBe(0);
    // A score of a listed subject is counted once, as any score, whatever the list says.
    await waitFor(
      'the deny entry on the node',
      async () => elevated(await score(nodes[0]!, b, { phone_number: phone })),
      15_000,
      100,
    );
    await waitFor('the score counted', async () => (await velocity()) === 1, 30_000, 250);
    expect(await r.exists(ledgerVotesKey(capPrefix, digest))).toBe(0);
  });
});
