import type { Kafka, KafkaMessage } from 'kafkajs';
import { register } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '../../shared/clients/clickhouse.ts';
import { createLogger } from '../../shared/logger.ts';
import { AuditSink } from './sink.ts';

describe('frs_sink_dlq_records_total', () => {
  it('counts each dead-lettered record by stage in the default registry', async () => {
    const sent: unknown[] = [];
    const kafka = {
      consumer: () => ({}),
      producer: () => ({ send: async (r: unknown) => void sent.push(r) }),
    } as unknown as Kafka;
    const sink = new AuditSink(kafka, {} as ClickHouseClient, createLogger('test', 'silent'), {
      groupId: 'g',
      database: 'frs',
      maxBackoffMs: 10,
      minBytes: 1,
      maxWaitMs: 1,
    });
    const value = async (stage: string) =>
      (await register.getSingleMetric('frs_sink_dlq_records_total')!.get()).values.find(
        (v) => v.labels.stage === stage,
      )?.value ?? 0;
    const before = await value('insert');
    const message = {
      key: null,
      value: Buffer.from('{}'),
      offset: '7',
      headers: {},
    } as unknown as KafkaMessage;
    // The one way records reach the DLQ; private, so reached by name.
    await (
      sink as unknown as { deadLetter: (t: string, p: number, r: unknown[]) => Promise<void> }
    ).deadLetter('scores.v1', 0, [
      { message, reason: 'clickhouse refused: Code: 25', stage: 'insert', errorCode: '25' },
      { message, reason: 'clickhouse refused: Code: 25', stage: 'insert', errorCode: '25' },
    ]);
    expect((await value('insert')) - before).toBe(2);
    expect(sent).toHaveLength(1);
  });
});
