import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditJournal } from '../../services/api/audit-journal.ts';
import { AuditPublisher } from '../../services/api/audit-publisher.ts';
import { createKafka } from '../../shared/clients/kafka.ts';
import { createLogger } from '../../shared/logger.ts';
import { cfg } from '../../infra/harness/fixtures.ts';
import { placedScoreRecordsFor, scoreTopicEnd } from '../../infra/harness/kafka-records.ts';
import { waitFor } from '../../infra/harness/processes.ts';

/** The publisher's batches on the real broker: each whole on one partition, the next elsewhere. */
describe('audit batches on scores.v1', () => {
  const dir = mkdtempSync(join(tmpdir(), 'frs-sticky-'));
  const publisher = new AuditPublisher(
    createKafka(cfg.KAFKA_BROKERS, 'frs-test-sticky'),
    new AuditJournal({ dir, segmentBytes: 1 << 20, maxBytes: 16 << 20 }),
    createLogger('test', 'silent'),
    // A slow send must not also go to the journal: a re-sent copy would blur which batch went where.
    { journalAfterMs: 60_000, stallMs: 60_000 },
  );

  afterAll(async () => {
    await publisher.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends every record of a batch to one partition and the next batch to another', async () => {
    const org = `test-sticky-${randomUUID()}`;
    const record = (batch: number, n: number) => JSON.stringify({ org_id: org, batch, n });
    const from = await scoreTopicEnd();
    await publisher.start();
    // A publisher starts by replaying its journal, and records published meanwhile go that way;
    // a replayed batch is one send like any other.
    void publisher.publish('warm', record(0, 0));
    await waitFor(
      'the publisher to reach Kafka',
      async () => publisher.stats.sent + publisher.stats.replayed === 1,
      30_000,
    );
    for (const batch of [1, 2]) {
      // Published within one turn of the event loop: one flush, one sendBatch.
      for (let n = 0; n < 40; n++) void publisher.publish(`${batch}-${n}`, record(batch, n));
      await waitFor(
        `batch ${batch} sent`,
        async () => publisher.stats.sent + publisher.stats.replayed >= 1 + 40 * batch,
      );
    }
    const placed = await placedScoreRecordsFor(org, from, await scoreTopicEnd());
    const partitionsOf = (batch: number) =>
      new Set(placed.filter((p) => (p.record as { batch: number }).batch === batch).map((p) => p.partition));
    expect(placed).toHaveLength(81);
    expect(publisher.stats.journalled).toBe(publisher.stats.replayed);
    expect(partitionsOf(1).size).toBe(1);
    expect(partitionsOf(2).size).toBe(1);
    expect([...partitionsOf(1)][0]).not.toBe([...partitionsOf(2)][0]);
  });
});
