import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../infra/clickhouse/migrate.ts';
import { LedgerTrust } from '../../services/audit-sink/ledger-trust.ts';
import type { ScoresProgress } from '../../services/audit-sink/scores-progress.ts';
import { decode, scoredSubjectRows, toRow } from '../../services/audit-sink/sink.ts';
import { ledgerVotesKey, LedgerVotes } from '../../shared/capabilities/ledger-votes.ts';
import { withdrawOutcome } from '../../services/admin/ledger-withdrawal.ts';
import { SubjectKeys } from '../../shared/capabilities/subject-key.ts';
import { redis } from '../../infra/harness/fixtures.ts';
import { toOutcomeRow } from '../../shared/outcomes/record.ts';
import { dropExpiredPartitions } from '../../services/refresher/jobs/retention.ts';
import { ScoreHistory } from '../../shared/audit/history.ts';
import { SubjectReveal } from '../../services/portal/subject-reveal.ts';
import { createLogger } from '../../shared/logger.ts';
import { serverVersion, type ClickHouseClient } from '../../shared/clients/clickhouse.ts';
import { historyRaws } from '../../shared/scoring/calibration/history.ts';
import { VERSION_DEFINITIONS } from '../../shared/scoring/weights.ts';
import { findVersion } from '../../shared/scoring/versions.ts';
import { readDay } from '../../shared/backtest/signatures.ts';
import { runBacktest } from '../../shared/backtest/run.ts';
import {
  documentedQueries,
  latestRun,
  newRunId,
  recordPromotion,
  saveRun,
} from '../../shared/backtest/store.ts';
import { Chdb } from '../helpers/chdb.ts';
import { rowSchemaColumns } from '../helpers/row-columns.ts';
import {
  DOC_ANSWERED,
  DOC_DISTINCT_SCORES,
  DOC_ORG,
  docScoreId,
  docsQueries,
  docsVelocityQuery,
  docsSeedRows,
} from '../../infra/harness/docs-seed.ts';
import { requestDigest } from '../../shared/audit/request-digest.ts';
import { answeredOnly } from '../../shared/clickhouse/answered.ts';
import { ListChangesDrain, listChangeRow } from '../../services/audit-sink/list-changes.ts';
import { OrgListStore } from '../../shared/orgs/lists-store.ts';
import { createRedis } from '../../shared/clients/redis.ts';
import { PrivateRedis } from '../helpers/private-redis.ts';

/**
 * Production runs a current ClickHouse; the dev machines' server is 18.16. This runs the schema
 * and every query the services and docs/data.md issue on ClickHouse 26.x in-process (chDB), by
 * calling the services' own functions, so what production runs is tested rather than assumed.
 * Migrations are globbed and the docs queries read from the doc: new ones are checked unasked.
 */

/**
 * Source files that talk to ClickHouse, each with the case below that runs its SQL on chDB. A new
 * file with ClickHouse calls fails the last test until it gets a case here.
 */
const COVERED: Record<string, string> = {
  'infra/clickhouse/migrate.ts': 'applies every migration',
  'shared/clients/clickhouse.ts': 'applies every migration',
  'services/audit-sink/sink.ts': 'stores what the sink inserts',
  'shared/audit/history.ts': 'finds a stored score as explain does',
  'services/refresher/jobs/retention.ts': 'drops expired partitions as the retention job does',
  'shared/scoring/calibration/history.ts': 'reads the scored population as npm run calibrate does',
  'services/audit-sink/ledger-trust.ts':
    "decides a report's trust from the scored subjects as the ledger learner does",
  'services/admin/ledger-withdrawal.ts': "withdraws an outcome as the operator's CLI does",
  'shared/backtest/signatures.ts': 'backtests and records a promotion as npm run backtest and the CLI do',
  'shared/backtest/store.ts': 'backtests and records a promotion as npm run backtest and the CLI do',
  'services/portal/subject-reveal.ts': "reveals the shown rows' subjects as the portal's Activity page does",
  'services/audit-sink/list-changes.ts': 'copies list changes as the audit sink does, once each',
};

const DB = 'frs';
const record = (scoreId: string, scoredAtMs: number) => ({
  v: 1,
  score_id: scoreId,
  org_id: 'org_0123456789abcdef',
  tier: 'bureau',
  scored_at: new Date(scoredAtMs).toISOString(),
  scored_at_ms: scoredAtMs,
  node_id: 'n1',
  latency_ms: 3,
  request: {
    subject: { phone_number: '+447400123456', ip_address: '81.2.69.160' },
    client_reference: "o'brien \\ ü",
  },
  response: {
    score_id: scoreId,
    score_version: '2026.11.0',
    score: 42,
    band: 'medium',
    recommended_action: 'investigate',
    coverage: 'partial',
    degraded_sources: ['ip_anonymiser'],
    client_reference: "o'brien \\ ü",
  },
  evidence: { components: [], primary_risk_factor: { code: 'CLI_IMPOSSIBLE' } },
});

/** A score id whose UUIDv7 time prefix is `ms`, as the API mints them. */
const scoreIdAt = (ms: number, tail: string) =>
  `sc_${ms.toString(16).padStart(12, '0')}7${tail.padStart(19, '0')}`;

/** An audit record as the sink decodes it from Kafka. */
function decoded(r: ReturnType<typeof record>) {
  const d = decode({
    key: null,
    value: Buffer.from(JSON.stringify(r)),
    offset: '0',
    timestamp: '0',
    attributes: 0,
    headers: {},
  });
  if (!d.ok) throw new Error(d.reason);
  return d.record;
}

function rowsOf(records: ReturnType<typeof record>[]) {
  return records.map((r) => ({ ...toRow(decoded(r)), inserted_at: Math.floor(Date.now() / 1000) }));
}

describe('ClickHouse 26.x (chDB): schema and every query', () => {
  let chdb: Chdb;
  let ch: ClickHouseClient;

  beforeAll(() => {
    chdb = Chdb.start();
    ch = chdb.client();
  });
  afterAll(async () => {
    await chdb?.close();
  });

  it('is a current release', async () => {
    const [major] = await serverVersion(ch);
    expect(major).toBeGreaterThanOrEqual(26);
  });

  it('applies every migration', async () => {
    const all = await loadMigrations(DB);
    expect(all.length).toBeGreaterThanOrEqual(3);
    const applied: string[] = [];
    await migrate(ch, DB, (m) => applied.push(m));
    expect(applied).toEqual(all.map((m) => `[migrate] applied ${m.name}`));
    // Recorded once each: a second run applies nothing.
    expect(await migrate(ch, DB, () => undefined)).toBe(0);
    // 006 dropped the daily views that aggregated the whole table before filtering; 009 made the
    // rule of "One row per answer" over the whole table one; 011's velocity view reads the last
    // 31 days only (docs/data.md filters inside it for one subject).
    const views = await ch
      .query({
        query: `SELECT name FROM system.tables WHERE database = '${DB}' AND engine = 'View' ORDER BY name`,
        format: 'JSONEachRow',
      })
      .then((r) => r.json());
    expect(views).toEqual([
      { name: 'phone_lookups_daily' },
      { name: 'scores_answered' },
      { name: 'subject_organisations_hourly' },
    ]);
    // A current server gets the TTL that 18.16 cannot have.
    const [create] = await ch
      .query({ query: `SHOW CREATE TABLE ${DB}.scores`, format: 'JSONEachRow' })
      .then((r) => r.json<{ statement: string }>());
    expect(create!.statement).toMatch(/TTL scored_at \+ toIntervalMonth\(13\)/);
  });

  it('has every column the row schemas of shared/clickhouse/rows.ts read', async () => {
    const columns = await rowSchemaColumns(ch, DB);
    expect(Object.keys(columns).length).toBeGreaterThanOrEqual(10);
    expect(Object.keys(columns).filter((c) => !columns[c])).toEqual([]);
  });

  it('finishes the setup a failed 002 left behind on a current server', async () => {
    // Before 002 was fixed, setup on a current server stopped at its second statement: 001
    // recorded, scores_daily created, 002 not recorded. The next migrate must complete it.
    const db = 'frs_partial';
    const [m001, m002, ...later] = await loadMigrations(db);
    await ch.command({ query: `CREATE DATABASE ${db}` });
    await migrate(ch, db, () => undefined);
    await ch.command({ query: `DROP DATABASE ${db}` });
    await ch.command({ query: `CREATE DATABASE ${db}` });
    await ch.command({
      query: `CREATE TABLE ${db}.schema_migrations (version UInt32, name String, applied_at DateTime DEFAULT now()) ENGINE = MergeTree ORDER BY version`,
    });
    for (const s of m001!.statements) await ch.command({ query: s.sql });
    await ch.insert({
      table: `${db}.schema_migrations`,
      values: [{ version: 1, name: m001!.name }],
      format: 'JSONEachRow',
    });
    await ch.command({ query: m002!.statements[0]!.sql });
    const applied: string[] = [];
    await migrate(ch, db, (m) => applied.push(m));
    expect(applied).toEqual([m002!, ...later].map((m) => `[migrate] applied ${m.name}`));
    await ch.command({ query: `DROP DATABASE ${db}` });
  });

  it('finishes a migration a run left half-applied, column by column', async () => {
    // A run that stopped inside 004 after its first ALTER: raw_risk exists, 004 not recorded. ADD
    // COLUMN has no IF NOT EXISTS on 18.16; the next run must skip what is there and add the rest.
    const db = 'frs_half';
    const all = await loadMigrations(db);
    await migrate(ch, db, () => undefined, undefined, { migrations: all.filter((m) => m.version < 4) });
    const m004 = all.find((m) => m.version === 4)!;
    await ch.command({ query: m004.statements[0]!.sql });
    const applied: string[] = [];
    await migrate(ch, db, (m) => applied.push(m));
    expect(applied[0]).toBe(`[migrate] applied ${m004.name}`);
    const columns = await ch
      .query({
        query: `SELECT name FROM system.columns WHERE database = '${db}' AND table = 'scores' AND name LIKE 'challenger%' ORDER BY name`,
        format: 'JSONEachRow',
      })
      .then((r) => r.json<{ name: string }>());
    expect(columns.map((c) => c.name)).toEqual(['challenger_band', 'challenger_score', 'challenger_version']);
    await ch.command({ query: `DROP DATABASE ${db}` });
  });

  it('stores the outcome rows the sink inserts', async () => {
    const ms = Date.now();
    const outcome = {
      v: 1 as const,
      outcome_id: `oc_${ms.toString(16).padStart(12, '0')}7${'1'.padStart(19, '0')}`,
      org_id: 'org_0123456789abcdef',
      received_at_ms: ms,
      occurred_at_ms: ms - 60_000,
      outcome: 'chargeback' as const,
      score_id: scoreIdAt(ms - 120_000, '9'),
      subject: { phone_number: '+447400123456' },
      node_id: 'n1',
      request: { score_id: scoreIdAt(ms - 120_000, '9'), outcome: 'chargeback', note: "o'brien \\ ü" },
    };
    const row = { ...toOutcomeRow(outcome), inserted_at: Math.floor(ms / 1000) };
    await ch.insert({ table: `${DB}.outcomes`, values: [row, row], format: 'JSONEachRow' });
    const rows = await ch
      .query({
        query: `SELECT outcome_id, outcome, score_id, phone_number, note FROM ${DB}.outcomes FINAL WHERE org_id = 'org_0123456789abcdef'`,
        format: 'JSONEachRow',
      })
      .then((r) => r.json());
    expect(rows).toEqual([
      {
        outcome_id: outcome.outcome_id,
        outcome: 'chargeback',
        score_id: outcome.score_id,
        phone_number: '+447400123456',
        note: "o'brien \\ ü",
      },
    ]);
  });

  it('stores what the sink inserts', async () => {
    const ms = Date.now();
    const records = [record(scoreIdAt(ms, '1'), ms), record(scoreIdAt(ms + 1, '2'), ms + 1)];
    await ch.insert({ table: `${DB}.scores`, values: rowsOf(records), format: 'JSONEachRow' });
    const rows = await ch
      .query({
        query: `SELECT score_id, client_reference, degraded_sources, has_ip, scored_at_ms FROM ${DB}.scores FINAL WHERE org_id = 'org_0123456789abcdef' ORDER BY score_id`,
        format: 'JSONEachRow',
      })
      .then((r) =>
        r.json<{
          score_id: string;
          client_reference: string;
          degraded_sources: string[];
          has_ip: number;
          scored_at_ms: string | number;
        }>(),
      );
    expect(rows.map((r) => r.score_id)).toEqual(records.map((r) => r.score_id));
    expect(rows[0]).toMatchObject({
      client_reference: "o'brien \\ ü",
      degraded_sources: ['ip_anonymiser'],
      has_ip: 1,
    });
    expect(Number(rows[0]!.scored_at_ms)).toBe(ms);
  });

  it('counts phone lookups per organisation and provider as the view and docs/data.md do', async () => {
    const org = 'org_lookupscurrent01';
    const ms = Date.now() - 30_000;
    const outcomes = ['answered', 'no_data', 'cache_hit', 'cap', 'timeout'] as const;
    const records = outcomes.map((outcome, i) => ({
      ...record(scoreIdAt(ms + i, `c${i}`), ms + i),
      org_id: org,
      phone_lookup: { provider: 'telesign', outcome },
    }));
    // A re-delivered record counts once.
    await ch.insert({
      table: `${DB}.scores`,
      values: rowsOf([...records, records[0]!]),
      format: 'JSONEachRow',
    });
    const rows = await ch
      .query({
        query: `SELECT provider, lookups, answered, no_data, timeouts, cache_hits, refused_cap FROM ${DB}.phone_lookups_daily WHERE org_id = '${org}'`,
        format: 'JSONEachRow',
      })
      .then((r) => r.json<Record<string, string | number>>());
    expect(rows.map((r) => Object.values(r).map(String))).toEqual([
      ['telesign', '3', '1', '1', '1', '1', '1'],
    ]);
    const m = /```sql phone-lookups\n([\s\S]*?)```/.exec(readFileSync('docs/data.md', 'utf8'))!;
    const doc = await ch
      .query({
        query: m[1]!.replaceAll('org_00000000000000a1', org).replace('FROM scores', `FROM ${DB}.scores`),
        format: 'JSONEachRow',
      })
      .then((r) => r.json<Record<string, string | number>>());
    expect(doc.map((r) => [r.provider, Number(r.lookups), Number(r.cache_hits), Number(r.refused)])).toEqual([
      ['telesign', 3, 1, 1],
    ]);
  });

  it('counts one row per answer: a retried request once, keyless scores each, other orgs apart', async () => {
    const org = 'org_onerowcurrent01';
    const other = 'org_onerowcurrent02';
    // Yesterday noon: every score of the request in one UTC day, whenever the test runs.
    const ms = Date.parse(`${new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)}T12:00:00Z`);
    const as = (orgId: string, id: string, at: number, key?: string) => ({
      ...record(id, at),
      org_id: orgId,
      ...(key !== undefined && { request_digest: requestDigest(orgId, key) }),
    });
    // The first node died before answering; the retry with the key, 31 s later, was scored again.
    const cutOff = as(org, scoreIdAt(ms, 'a1'), ms, 'k-1');
    const answered = as(org, scoreIdAt(ms + 31_000, 'a2'), ms + 31_000, 'k-1');
    const keyless = [
      as(org, scoreIdAt(ms + 40_000, 'a3'), ms + 40_000),
      as(org, scoreIdAt(ms + 41_000, 'a4'), ms + 41_000),
    ];
    const elsewhere = as(other, scoreIdAt(ms + 50_000, 'a5'), ms + 50_000, 'k-1');
    const all = [cutOff, answered, ...keyless, elsewhere];
    await ch.insert({ table: `${DB}.scores`, values: rowsOf([...all, cutOff]), format: 'JSONEachRow' });
    const ids = (query: string) =>
      ch
        .query({ query, format: 'JSONEachRow' })
        .then((r) => r.json<{ score_id: string }>())
        .then((rows) => rows.map((r) => r.score_id).sort());
    const expected = [answered, ...keyless].map((r) => r.score_id).sort();
    expect(await ids(`SELECT score_id FROM ${DB}.scores_answered WHERE org_id = '${org}'`)).toEqual(expected);
    expect(await ids(`SELECT score_id FROM ${DB}.scores_answered WHERE org_id = '${other}'`)).toEqual([
      elsewhere.score_id,
    ]);
    const filter = `org_id = '${org}' AND scored_at >= toDateTime(${Math.floor(ms / 1000) - 60})`;
    expect(
      await ids(
        `SELECT score_id FROM ${DB}.scores FINAL WHERE ${filter} ${answeredOnly(`${DB}.scores`, filter)}`,
      ),
    ).toEqual(expected);
    expect(await ids(`SELECT score_id FROM ${DB}.scores FINAL WHERE ${filter}`)).toHaveLength(4);
    const day = new Date(ms).toISOString().slice(0, 10);
    const counted = (await readDay(ch, DB, day, org)).reduce((n, g) => n + g.scores, 0);
    expect(counted).toBe(3);
  });

  it("decides a report's trust from the scored subjects as the ledger learner does", async () => {
    const ms = Date.now() - 60_000;
    const org = 'org_0123456789abcdef';
    const scored = record(scoreIdAt(ms, '5'), ms);
    scored.request.subject = { phone_number: '+447400999888', ip_address: '81.2.69.161' };
    // The sink's derived rows, twice (a re-delivered batch), and a later score of the same day.
    const rows = scoredSubjectRows([
      decoded(scored),
      decoded(record(scoreIdAt(ms + 30_000, '6'), ms + 30_000)),
    ]);
    await ch.insert({ table: `${DB}.scored_subjects`, values: [...rows, ...rows], format: 'JSONEachRow' });
    const progress = {
      watermark: async () => new Map(),
      reached: async () => true,
    } as unknown as ScoresProgress;
    const trust = new LedgerTrust({ ch, database: DB, progress });
    const report = (receivedMs: number) => ({
      v: 1 as const,
      outcome_id: `oc_${receivedMs.toString(16).padStart(12, '0')}7${'2'.padStart(19, '0')}`,
      org_id: org,
      received_at_ms: receivedMs,
      occurred_at_ms: receivedMs,
      outcome: 'confirmed_fraud' as const,
      subject: { phone_number: '+447400999888', ip_address: '81.2.69.199' },
      node_id: 'n1',
      request: {},
    });
    const [after, before] = await trust.scoredBefore([report(ms + 1_000), report(ms - 1_000)]);
    expect([...after!]).toEqual(['phone:+447400999888']);
    expect([...before!]).toEqual([]);
  });

  /** An outcome of `org` about `subject`, stored as the sink stores it; its id. */
  async function storedOutcome(
    ms: number,
    tail: string,
    subject: { phone_number?: string; ip_address?: string },
  ) {
    const outcomeId = `oc_${ms.toString(16).padStart(12, '0')}7${tail.padStart(19, '0')}`;
    const row = {
      ...toOutcomeRow({
        v: 1,
        outcome_id: outcomeId,
        org_id: 'org_0123456789abcdef',
        received_at_ms: ms,
        occurred_at_ms: ms,
        outcome: 'chargeback',
        subject,
        node_id: 'n1',
        request: {},
      }),
      inserted_at: Math.floor(ms / 1000),
    };
    await ch.insert({ table: `${DB}.outcomes`, values: [row], format: 'JSONEachRow' });
    return outcomeId;
  }

  it("withdraws an outcome as the operator's CLI does", async () => {
    const outcomeId = await storedOutcome(Date.now(), '3', { phone_number: '+447400123456' });
    const r = redis();
    const prefix = `frs-test-chdb-${process.pid}`;
    try {
      const keys = new SubjectKeys('a test secret of at least thirty-two characters');
      const deps = { ch, database: DB, votes: new LedgerVotes(r, prefix, 10), keys };
      await expect(withdrawOutcome(deps, outcomeId, "o'brien said so", 'ops')).resolves.toMatchObject({
        org_id: 'org_0123456789abcdef',
        votes_withdrawn: 1,
        superseded: [],
      });
      const stored = await ch
        .query({
          query: `SELECT reason FROM ${DB}.outcome_withdrawals WHERE outcome_id = '${outcomeId}'`,
          format: 'JSONEachRow',
        })
        .then((rs) => rs.json());
      expect(stored).toEqual([{ reason: "o'brien said so" }]);
    } finally {
      const left = await r.keys(`${prefix}:*`);
      if (left.length > 0) await r.del(...left);
      r.disconnect();
    }
  });

  it('copies list changes as the audit sink does, once each', async () => {
    // A Redis of the test's own: the drain reads every organisation's outbox it finds.
    const server = await PrivateRedis.start();
    const r = createRedis(server.url);
    try {
      const store = new OrgListStore(r);
      const org = 'org_00000000000000ab';
      const entry = { kind: 'ip' as const, value: '81.2.69.160', effect: 'deny' as const, reason: "o'brien" };
      await store.add(org, [entry], 'key:key_1');
      await store.replace(org, [entry, { ...entry, value: '81.2.69.161' }], 'user:a@example.test');
      await store.remove(org, ['ip:81.2.69.161'], 'operator:ops');
      const pending = await store.outbox(org, 10);
      const drain = new ListChangesDrain({ store, ch, database: DB, log: createLogger('test', 'silent') });
      await expect(drain.drain()).resolves.toBe(3);
      // A copy made again (the sink stopped between insert and trim) is the same change.
      await ch.insert({
        table: `${DB}.list_changes`,
        values: [listChangeRow(pending[0]!.change!)],
        format: 'JSONEachRow',
      });
      const rows = await ch
        .query({
          query: `SELECT action, actor, entries, entries_before, value, reason FROM ${DB}.list_changes FINAL WHERE org_id = '${org}' ORDER BY action`,
          format: 'JSONEachRow',
        })
        .then((rs) => rs.json());
      expect(rows).toEqual([
        {
          action: 'add',
          actor: 'key:key_1',
          entries: 1,
          entries_before: 0,
          value: '81.2.69.160',
          reason: "o'brien",
        },
        {
          action: 'remove',
          actor: 'operator:ops',
          entries: 1,
          entries_before: 0,
          value: '81.2.69.161',
          reason: "o'brien",
        },
        {
          action: 'replace',
          actor: 'user:a@example.test',
          entries: 2,
          entries_before: 1,
          value: '',
          reason: '',
        },
      ]);
      await expect(store.outbox(org, 10)).resolves.toEqual([]);
      // docs/data.md's query of one organisation's changes (its `sql lists` block), as written.
      const documented = /```sql lists\n([\s\S]*?)```/.exec(readFileSync('docs/data.md', 'utf8'))![1]!;
      const listed = await ch
        .query({
          query: documented
            .replace('FROM list_changes', `FROM ${DB}.list_changes`)
            .replace(/org_[0-9a-f]{16}/, org),
          format: 'JSONEachRow',
        })
        .then((rs) => rs.json());
      expect(listed).toHaveLength(3);
    } finally {
      r.disconnect();
      await server.stop();
    }
  });

  it('withdrawing an outcome a later one superseded names the later one, which still counts', async () => {
    const ms = Date.now();
    const subject = { phone_number: '+447400123457', ip_address: '81.2.69.143' };
    const org = 'org_0123456789abcdef';
    // o1 about the number and the address; o2, later, about the number only.
    const o1 = await storedOutcome(ms, '5', subject);
    const o2 = await storedOutcome(ms + 1, '6', { phone_number: subject.phone_number });
    const r = redis();
    const prefix = `frs-test-chdb-super-${process.pid}`;
    try {
      const keys = new SubjectKeys('a test secret of at least thirty-two characters');
      const votes = new LedgerVotes(r, prefix, 10);
      const deps = { ch, database: DB, votes, keys };
      const phoneKey = keys.keys(`phone:${subject.phone_number}`)[0]!;
      const ipKey = keys.keys(`ip:${subject.ip_address}`)[0]!;
      await votes.vote(phoneKey, { orgId: org, outcomeId: o1, state: 't' }, 'report');
      await votes.vote(ipKey, { orgId: org, outcomeId: o1, state: 't' }, 'report');
      await votes.vote(phoneKey, { orgId: org, outcomeId: o2, state: 't' }, 'report');
      const vote = (key: string) => r.hget(ledgerVotesKey(prefix, key), org);

      const first = await withdrawOutcome(deps, o1, 'false report', 'ops');
      expect(first).toMatchObject({
        votes_withdrawn: 1,
        superseded: [{ subject: 'phone_number', by: o2, still_counts: true }],
      });
      expect(first.result).toContain(`withdraw ${o2}`);
      // The address's vote is withdrawn; the number's is still o2's report.
      expect(await vote(ipKey)).toBe(`${o1} x`);
      expect(await vote(phoneKey)).toBe(`${o2} t`);

      // Withdrawing the later one takes the organisation's vote on the number back.
      await expect(withdrawOutcome(deps, o2, 'false report', 'ops')).resolves.toMatchObject({
        votes_withdrawn: 1,
        superseded: [],
      });
      expect(await vote(phoneKey)).toBe(`${o2} x`);
      // Again: o1 is superseded by a withdrawn vote, which no longer counts.
      await expect(withdrawOutcome(deps, o1, 'again', 'ops')).resolves.toMatchObject({
        votes_withdrawn: 1,
        superseded: [{ subject: 'phone_number', by: o2, still_counts: false }],
      });
    } finally {
      const left = await r.keys(`${prefix}:*`);
      if (left.length > 0) await r.del(...left);
      r.disconnect();
    }
  });

  it('finds a stored score as explain does', async () => {
    const ms = Date.now() - 5_000;
    const r = record(scoreIdAt(ms, '3'), ms);
    await ch.insert({ table: `${DB}.scores`, values: rowsOf([r]), format: 'JSONEachRow' });
    const found = await new ScoreHistory(ch, DB).find(r.org_id, r.score_id);
    expect(found).toMatchObject({
      score_id: r.score_id,
      org_id: r.org_id,
      scored_at_ms: ms,
      response: r.response,
    });
    expect(await new ScoreHistory(ch, DB).find('org_other000000000', r.score_id)).toBeNull();
  });

  it("reveals the shown rows' subjects as the portal's Activity page does", async () => {
    const ms = Date.now() - 6_000;
    const r = record(scoreIdAt(ms, '5'), ms);
    await ch.insert({ table: `${DB}.scores`, values: rowsOf([r]), format: 'JSONEachRow' });
    const reveal = new SubjectReveal({
      recent: { get: async () => null },
      ch,
      database: DB,
      log: createLogger('test', 'silent'),
    });
    const found = await reveal.subjects(r.org_id, [r.score_id]);
    expect(found.get(r.score_id)).toEqual(r.request.subject);
    expect((await reveal.subjects('org_other000000000', [r.score_id])).size).toBe(0);
  });

  it('drops expired partitions as the retention job does', async () => {
    const old = Date.UTC(2024, 0, 15);
    await ch.insert({
      table: `${DB}.scores`,
      values: rowsOf([record(scoreIdAt(old, '4'), old)]),
      format: 'JSONEachRow',
    });
    const result = await dropExpiredPartitions(ch, DB, new Date(Date.UTC(2026, 10, 22)));
    expect(result.dropped).toEqual(['202401']);
    const [left] = await ch
      .query({
        query: `SELECT count() AS n FROM ${DB}.scores WHERE toYYYYMM(scored_at) = 202401`,
        format: 'JSONEachRow',
      })
      .then((r) => r.json<{ n: string | number }>());
    expect(Number(left!.n)).toBe(0);
  });

  it('backtests and records a promotion as npm run backtest and the CLI do', async () => {
    // Older than the calibration's 30 days, younger than retention: no other case reads it.
    const ms = Date.now() - 40 * 86_400_000;
    // A Tor exit under 2026.12.2 (high), re-delivered once, with a chargeback reported on it.
    const id = scoreIdAt(ms, '7');
    const base = record(id, ms);
    const tor = {
      ...base,
      response: { ...base.response, score_version: '2026.12.2', score: 97, band: 'high' },
      evidence: {
        components: [
          { component: 'ip_network_type', verdict: 'clean', contribution: 0, detail: 'IP_ACCESS_NETWORK' },
          { component: 'ip_tor_exit', verdict: 'adverse', contribution: 35, detail: 'IP_TOR_EXIT' },
        ],
      } as unknown as typeof base.evidence,
      raw_risk: 35,
      fired_components: ['IP_TOR_EXIT'],
    };
    await ch.insert({ table: `${DB}.scores`, values: rowsOf([tor, tor]), format: 'JSONEachRow' });
    const outcome = {
      outcome_id: `oc_${ms.toString(16).padStart(12, '0')}7${'8'.padStart(19, '0')}`,
      org_id: tor.org_id,
      received_at: Math.floor(ms / 1000) + 5,
      received_at_ms: ms + 5000,
      occurred_at: Math.floor(ms / 1000),
      outcome: 'chargeback',
      score_id: id,
    };
    await ch.insert({ table: `${DB}.outcomes`, values: [outcome], format: 'JSONEachRow' });
    const day = (t: number) => new Date(t).toISOString().slice(0, 10);
    const window = { from: day(ms), to: day(ms + 86_400_000), orgId: tor.org_id };
    const [group, ...others] = (await readDay(ch, DB, window.from, window.orgId)).filter(
      (g) => g.version === '2026.12.2',
    );
    expect(others).toEqual([]);
    expect(group).toMatchObject({
      scores: 1,
      label: 'chargeback',
      stored: { raw: 35, score: 97, band: 'high' },
    });
    const f = await runBacktest({
      ch,
      database: DB,
      candidate: findVersion('2026.12.1')!,
      baseline: findVersion('2026.12.2')!,
      window,
    });
    expect(f.scores).toBe(1);
    expect(f.reproduced).toBe(1);
    expect(f.baseline.bands.high.fraud).toBe(1);
    const meta = {
      run_id: newRunId(),
      ran_at: new Date(),
      candidate: '2026.12.1',
      baseline: '2026.12.2',
      from: window.from,
      to: window.to,
      org_id: '',
    };
    await saveRun(ch, DB, meta, f);
    // docs/data.md "Backtests" queries, as written but for the database and run id.
    for (const q of documentedQueries(readFileSync('docs/data.md', 'utf8'))) {
      const sql = q
        .replaceAll('FROM backtests', `FROM ${DB}.backtests`)
        .replace(/bt_[0-9a-f]{32}/, meta.run_id);
      expect(
        (await ch.query({ query: sql, format: 'JSONEachRow' }).then((r) => r.json())).length,
      ).toBeGreaterThan(0);
    }
    expect(await latestRun(ch, DB, '2026.12.1', '2026.12.2')).toMatchObject({
      run_id: meta.run_id,
      scores: f.scores,
      caps_pass: f.candidate.caps_pass,
    });
    await recordPromotion(ch, DB, {
      version: '2026.12.1',
      previous_default: '2026.12.2',
      backtest_run_id: meta.run_id,
      forced: true,
      reason: "o'brien's reason",
      operator: 'test',
    });
    const [p] = await ch
      .query({ query: `SELECT reason, forced FROM ${DB}.version_promotions`, format: 'JSONEachRow' })
      .then((r) => r.json<{ reason: string; forced: number }>());
    expect(p).toEqual({ reason: "o'brien's reason", forced: 1 });
  });

  it('reads the scored population as npm run calibrate does', async () => {
    const ms = Date.now() - 10_000;
    // The same subject twice in one day, under the candidate's points: one subject-day.
    const scored = [scoreIdAt(ms, '5'), scoreIdAt(ms + 1, '6')].map((id, i) => ({
      ...record(id, ms + i),
      response: { ...record(id, ms + i).response, score_version: '2026.12.0' },
      raw_risk: 45,
      fired_components: ['CLI_IMPOSSIBLE'],
    }));
    await ch.insert({ table: `${DB}.scores`, values: rowsOf(scored), format: 'JSONEachRow' });
    const candidate = VERSION_DEFINITIONS.find((v) => v.id === '2026.12.1')!;
    const h = await historyRaws(candidate, 30, ch, DB);
    expect(h.rows).toEqual([{ raw: 45, fired: ['CLI_IMPOSSIBLE'] }]);
    expect(h.skipped).toBeGreaterThan(0);
  });

  it('runs every query of docs/data.md as written, exactly with a re-delivered record', async () => {
    await ch.command({ query: `USE ${DB}` });
    const now = Math.floor(Date.now() / 1000);
    await ch.insert({ table: `${DB}.scores`, values: docsSeedRows(now), format: 'JSONEachRow' });
    const queries = docsQueries(docScoreId(now));
    expect(queries.length).toBeGreaterThanOrEqual(12);
    const failures: string[] = [];
    for (const query of queries) {
      try {
        const rows = await ch.query({ query, format: 'JSONEachRow' }).then((r) => r.json());
        if (rows.length === 0) failures.push(`no rows: ${query}`);
      } catch (err) {
        failures.push(`${String(err)}\n${query}`);
      }
    }
    expect(failures).toEqual([]);
    // The velocity query needs three organisations, which the seed does not have: it must run.
    await ch.query({ query: docsVelocityQuery(), format: 'JSONEachRow' }).then((r) => r.json());
    const [day] = await ch
      .query({
        query: `SELECT count() AS n FROM scores FINAL WHERE org_id = '${DOC_ORG}'`,
        format: 'JSONEachRow',
      })
      .then((r) => r.json<{ n: string | number }>());
    expect(Number(day!.n)).toBe(DOC_DISTINCT_SCORES);
    const [answered] = await ch
      .query({
        query: `SELECT count() AS n FROM scores_answered WHERE org_id = '${DOC_ORG}'`,
        format: 'JSONEachRow',
      })
      .then((r) => r.json<{ n: string | number }>());
    expect(Number(answered!.n)).toBe(DOC_ANSWERED);
  });

  it('covers every source file that sends SQL to ClickHouse', () => {
    const calls = /\b(ch|this\.ch|clickhouse|client)\.(query|command|insert|exec)\(\s*\{/;
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith('.ts') && !path.endsWith('.test.ts') && calls.test(readFileSync(path, 'utf8')))
          sources.push(path);
      }
    };
    for (const dir of ['services', 'shared', 'infra']) walk(dir);
    expect(
      sources.filter((s) => !(s in COVERED)),
      'add a case above that runs its SQL on chDB',
    ).toEqual([]);
    expect(sources.sort()).toEqual(Object.keys(COVERED).sort());
  });
});
