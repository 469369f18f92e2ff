import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, SCORES_DLQ_TOPIC, SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import { quote } from '../../shared/clients/sql.ts';
import { newScoreId } from '../../shared/ids.ts';
import { cfg, clickhouse } from '../../infra/harness/fixtures.ts';
import { startSink, waitFor, type Service } from '../../infra/harness/processes.ts';
import { sinkGroupAtEnd } from '../../infra/harness/sink-group.ts';

/** A valid audit record of a fresh score; `clientReference` is spliced in as raw JSON text. */
const run = promisify(execFile);

function auditRecordJson(orgId: string, clientReferenceJson = '"ref"'): { scoreId: string; value: string } {
  const scoreId = newScoreId();
  const now = Date.now();
  const record = {
    v: 1,
    score_id: scoreId,
    org_id: orgId,
    tier: 'assess',
    scored_at: new Date(now).toISOString(),
    scored_at_ms: now,
    node_id: 'test',
    latency_ms: 1,
    request: { subject: { phone_number: '+447911123456' } },
    response: {
      score_id: scoreId,
      score_version: '2026.11.0',
      score: 42,
      band: 'medium',
      recommended_action: 'investigate',
      coverage: 'partial',
      degraded_sources: [],
      client_reference: '@@REF@@',
    },
    evidence: { components: [] },
  };
  return { scoreId, value: JSON.stringify(record).replace('"@@REF@@"', clientReferenceJson) };
}

/**
 * Records the sink cannot decode, and records ClickHouse refuses, go to scores.v1.dlq unchanged
 * with the reason in headers; the records around them are stored.
 */
describe('audit sink dead-letter queue on the real Kafka', () => {
  const kafka = createKafka(cfg.KAFKA_BROKERS, 'frs-test-dlq');
  const producer = kafka.producer();
  const consumer = kafka.consumer({ groupId: `frs-test-dlq-${randomUUID()}` });
  const seen: { key: string; value: string; headers: Record<string, string> }[] = [];
  let sink: Service;
  let refused: { key: string; scoreId: string; orgId: string } | undefined;
  const ch = clickhouse();

  beforeAll(async () => {
    await producer.connect();
    await consumer.connect();
    await consumer.subscribe({ topic: SCORES_DLQ_TOPIC, fromBeginning: false });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const headers = Object.fromEntries(
          Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]),
        );
        seen.push({ key: String(message.key), value: String(message.value), headers });
      },
    });
    // The consumer has joined and taken its partitions once the group describes it as stable.
    await waitFor(
      'the DLQ consumer to join',
      async () => (await consumer.describeGroup()).state === 'Stable',
    );
    sink = startSink(await sinkGroupAtEnd());
  });

  afterAll(async () => {
    await sink?.stop();
    await consumer.disconnect();
    await producer.disconnect();
    await ch.close();
  });

  it('passes the poison record through byte for byte and says why', async () => {
    const key = `poison-${randomUUID()}`;
    const value = `{"v":1,"score_id":"not-an-id","note":"${key}"}`;
    await producer.send({ topic: SCORES_TOPIC, messages: [{ key, value, headers: { origin: 'test' } }] });
    const dead = await waitFor(
      'the poison record on the DLQ',
      async () => seen.find((m) => m.key === key),
      60_000,
    );
    expect(dead.value).toBe(value);
    expect(dead.headers.origin).toBe('test');
    expect(dead.headers['x-dlq-reason']).toMatch(/schema/);
    expect(dead.headers['x-dlq-source-topic']).toBe(SCORES_TOPIC);
  });

  it('quarantines a record ClickHouse refuses, unchanged and with its reason, and stores the rest', async () => {
    const orgId = `org_dlq_${randomUUID().slice(0, 8)}`;
    const before = Array.from({ length: 5 }, () => auditRecordJson(orgId));
    // Valid JSON and a valid record; ClickHouse 18.16 refuses it (Code: 25, lone surrogate).
    const poison = auditRecordJson(orgId, '"x\\ud800"');
    const after = Array.from({ length: 5 }, () => auditRecordJson(orgId));
    const key = `refused-${randomUUID()}`;
    // One send, one partition: the refused record sits in the middle of the sink's batch.
    await producer.send({
      topic: SCORES_TOPIC,
      messages: [
        ...before.map((r) => ({ key: `${key}-before`, value: r.value, partition: 0 })),
        { key, value: poison.value, partition: 0, headers: { origin: 'test' } },
        ...after.map((r) => ({ key: `${key}-after`, value: r.value, partition: 0 })),
      ],
    });
    const dead = await waitFor(
      'the refused record on the DLQ',
      async () => seen.find((m) => m.key === key),
      90_000,
    );
    expect(dead.value).toBe(poison.value);
    expect(dead.headers.origin).toBe('test');
    expect(dead.headers['x-dlq-stage']).toBe('insert');
    expect(dead.headers['x-dlq-error-code']).toBe('25');
    expect(dead.headers['x-dlq-reason']).toMatch(/^clickhouse refused: .*surrogate/);
    expect(dead.headers['x-dlq-source-topic']).toBe(SCORES_TOPIC);

    const good = [...before, ...after].map((r) => r.scoreId);
    const stored = await waitFor(
      'the records around it in ClickHouse',
      async () => {
        const rs = await ch.query({
          query: `SELECT score_id FROM ${cfg.CLICKHOUSE_DATABASE}.scores WHERE org_id = ${quote(orgId)}`,
          format: 'JSONEachRow',
        });
        const ids = (await rs.json<{ score_id: string }>()).map((r) => r.score_id);
        return ids.length >= good.length ? ids : undefined;
      },
      90_000,
      250,
    );
    expect(stored.sort()).toEqual(good.sort());
    // Only the refused record was dead-lettered, not its neighbours.
    expect(seen.filter((m) => m.key.startsWith(`${key}-`))).toEqual([]);
    refused = { key, scoreId: poison.scoreId, orgId };
  });

  it('replays the repaired record with the documented command, and it is stored', async () => {
    expect(refused, 'the quarantine test ran first').toBeDefined();
    const { key, scoreId, orgId } = refused!;
    const { stdout } = await run(process.execPath, ['services/audit-sink/dlq-cli.ts', 'list', '--repair'], {
      env: process.env,
      maxBuffer: 64 << 20,
    });
    const line = stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { key: string; repaired: boolean; headers: Record<string, string> })
      .find((l) => l.key === key);
    expect(line?.repaired).toBe(true);
    expect(line?.headers['x-dlq-stage']).toBe('insert');
    const dir = mkdtempSync(join(tmpdir(), 'frs-dlq-'));
    const file = join(dir, 'fixed.jsonl');
    writeFileSync(file, `${JSON.stringify(line)}\n`);
    const replayed = await run(
      process.execPath,
      ['services/audit-sink/dlq-cli.ts', 'replay', '--file', file],
      {
        env: process.env,
      },
    );
    expect(JSON.parse(replayed.stdout)).toEqual({ replayed: 1 });
    const row = await waitFor(
      'the replayed record in ClickHouse',
      async () => {
        const rs = await ch.query({
          query: `SELECT client_reference FROM ${cfg.CLICKHOUSE_DATABASE}.scores
                  WHERE org_id = ${quote(orgId)} AND score_id = ${quote(scoreId)}`,
          format: 'JSONEachRow',
        });
        return (await rs.json<{ client_reference: string }>())[0];
      },
      90_000,
      250,
    );
    expect(row.client_reference).toBe('x\ufffd');
  });
});
