import { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../infra/clickhouse/migrate.ts';
import { oldestKeptPartition } from '../../services/refresher/jobs/retention.ts';
import { REFRESHER_QUEUE } from '../../services/refresher/schedule.ts';
import { CAPABILITIES } from '../../shared/capabilities/registry.ts';
import { unlinkPrefix } from '../../infra/harness/feed-server.ts';
import { cfg, clickhouse } from '../../infra/harness/fixtures.ts';
import { spawnService, waitFor, type Service } from '../../infra/harness/processes.ts';

const DB = 'frs_retention_test';

/** UTC timestamp `months` calendar months before the current month, at day/time given. */
function monthsAgo(months: number, day: number, time: string): string {
  const now = new Date();
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, day));
  return `${d.toISOString().slice(0, 10)} ${time}`;
}
const yyyymm = (ts: string) => ts.slice(0, 7).replace('-', '');

describe('audit retention', () => {
  const ch = clickhouse();
  const redis = new Redis(cfg.REDIS_URL, { maxRetriesPerRequest: null });
  // A queue of its own (BULLMQ_PREFIX frs-<name>, which the refresher's Redis user may use).
  const prefix = `frs-test-${randomBytes(4).toString('hex')}`;
  const queue = new Queue(REFRESHER_QUEUE, { connection: redis, prefix });
  // Its own capability prefix too (under frs:cap): the refresher's capability jobs then write no
  // shared snapshot.
  const capPrefix = `frs:cap:${prefix}`;
  const env = {
    CLICKHOUSE_DATABASE: DB,
    BULLMQ_PREFIX: prefix,
    CAPABILITY_KEY_PREFIX: capPrefix,
    LOG_LEVEL: 'warn',
  };
  let refresher: Service | undefined;

  beforeAll(async () => {
    await ch.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await migrate(ch, DB, () => undefined);
  });

  afterAll(async () => {
    await refresher?.stop();
    await queue.obliterate({ force: true });
    await queue.close();
    await unlinkPrefix(redis, prefix);
    await unlinkPrefix(redis, capPrefix);
    redis.disconnect();
    await ch.command({ query: `DROP DATABASE IF EXISTS ${DB}` });
    await ch.close();
  });

  it('keeps the month 13 months back and everything newer', () => {
    expect(oldestKeptPartition(new Date('2026-11-21T12:00:00Z'))).toBe(202510);
    expect(oldestKeptPartition(new Date('2026-01-01T00:00:00Z'))).toBe(202412);
    expect(oldestKeptPartition(new Date('2026-12-31T23:59:59Z'))).toBe(202511);
  });

  it('restarts of the refresher leave exactly one retention scheduler', async () => {
    for (let i = 0; i < 2; i++) {
      refresher = spawnService('services/refresher/main.ts', env);
      // The worker starts after the schedulers are upserted, so a worker means registration is done.
      await waitFor('the refresher worker', async () => (await queue.getWorkersCount()) === 1, 20_000);
      if (i === 0) expect(await refresher.stop('SIGTERM')).toBe(0);
    }
    const schedulers = await queue.getJobSchedulers();
    // One scheduler per job: the retention job and one per capability (registry.ts).
    const keys = schedulers.map((s) => s.key).sort();
    expect(keys).toEqual(['audit-retention', ...CAPABILITIES.map((c) => `capability:${c.name}`)].sort());
    expect(schedulers.find((s) => s.key === 'audit-retention')!.pattern).toBe('17 3 * * *');
  });

  it('the retention job drops partitions older than 13 months and keeps the 13th month', async () => {
    const rows = [
      { at: monthsAgo(20, 10, '12:00:00'), kept: false },
      { at: monthsAgo(14, 1, '00:00:00'), kept: false },
      { at: monthsAgo(14, 28, '23:59:59'), kept: false },
      { at: monthsAgo(13, 1, '00:00:00'), kept: true },
      { at: monthsAgo(13, 20, '08:00:00'), kept: true },
      { at: monthsAgo(1, 5, '08:00:00'), kept: true },
      { at: monthsAgo(0, 1, '00:00:01'), kept: true },
    ];
    await ch.insert({
      table: `${DB}.scores`,
      format: 'JSONEachRow',
      values: rows.map((r, i) => ({
        score_id: `sc_${String(i).padStart(32, '0')}`,
        org_id: 'org_retention',
        scored_at: r.at,
        tier: 'verify',
        band: 'low',
      })),
    });
    await ch.insert({
      table: `${DB}.outcomes`,
      format: 'JSONEachRow',
      values: rows.map((r, i) => ({
        outcome_id: `oc_${String(i).padStart(32, '0')}`,
        org_id: 'org_retention',
        received_at: r.at,
        occurred_at: r.at,
        outcome: 'not_fraud',
      })),
    });
    await ch.insert({
      table: `${DB}.list_changes`,
      format: 'JSONEachRow',
      values: rows.map((r, i) => ({
        change_id: `lc_${String(i).padStart(32, '0')}`,
        org_id: 'org_retention',
        changed_at: r.at,
        action: 'replace',
        actor: 'operator:retention-test',
      })),
    });

    // Through the running refresher's worker, as the scheduler would run it. It may queue behind
    // the first run of every capability job, which builds each snapshot for this fresh prefix.
    const job = await queue.add('audit-retention', {});
    const done = await waitFor(
      'the retention job',
      async () => ((await Job.fromId(queue, job.id!))?.finishedOn ? Job.fromId(queue, job.id!) : null),
      50_000,
      250,
    );
    expect(done!.failedReason).toBeUndefined();

    const rs = await ch.query({
      query: `SELECT toString(scored_at) AS at FROM ${DB}.scores ORDER BY scored_at`,
      format: 'JSONEachRow',
    });
    const left = (await rs.json<{ at: string }>()).map((r) => r.at);
    expect(left).toEqual(rows.filter((r) => r.kept).map((r) => r.at));
    const dropped = [...new Set(rows.filter((r) => !r.kept).map((r) => Number(yyyymm(r.at))))].sort();
    expect(done!.returnvalue.dropped.map(Number)).toEqual(dropped);
    const outcomes = await ch.query({
      query: `SELECT toString(received_at) AS at FROM ${DB}.outcomes ORDER BY received_at`,
      format: 'JSONEachRow',
    });
    expect((await outcomes.json<{ at: string }>()).map((r) => r.at)).toEqual(
      rows.filter((r) => r.kept).map((r) => r.at),
    );
    expect(done!.returnvalue.outcomesDropped.map(Number)).toEqual(dropped);
    const changes = await ch.query({
      query: `SELECT toString(changed_at) AS at FROM ${DB}.list_changes ORDER BY changed_at`,
      format: 'JSONEachRow',
    });
    expect((await changes.json<{ at: string }>()).map((r) => r.at)).toEqual(
      rows.filter((r) => r.kept).map((r) => r.at),
    );
    expect(done!.returnvalue.listChangesDropped.map(Number)).toEqual(dropped);
  });
});
