import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKafka } from '../../shared/clients/kafka.ts';
import { createLogger } from '../../shared/logger.ts';
import { AuditJournal, type JournalEntry } from './audit-journal.ts';
import { AuditPublisher } from './audit-publisher.ts';

const APPEND_MS = 100;

/** A real journal on a disk that takes APPEND_MS per append, far slower than the 20 ms flush tick. */
class SlowDiskJournal extends AuditJournal {
  appends = 0;
  override async append(entries: JournalEntry[]): Promise<{ seq: number; refused: number }> {
    this.appends++;
    await new Promise((r) => setTimeout(r, APPEND_MS));
    return super.append(entries);
  }
}

describe('AuditPublisher with Kafka unreachable', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('makes each record durable in the journal, one fsync for all records queued during the previous one, in order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'frs-publisher-'));
    dirs.push(dir);
    const journal = new SlowDiskJournal({ dir, segmentBytes: 1 << 20, maxBytes: 1 << 30 });
    // Nothing listens on port 1: the publisher stays in spill mode throughout.
    const kafka = createKafka(['127.0.0.1:1'], 'frs-publisher-test', { retry: { retries: 0 } });
    const publisher = new AuditPublisher(kafka, journal, createLogger('test', 'silent'));
    await publisher.start();

    const started = Date.now();
    const keys: string[] = [];
    const durable: Promise<void>[] = [];
    let appendsWhenDurable = 0;
    for (let i = 0; i < 100; i++) {
      keys.push(`sc_${String(i).padStart(3, '0')}`);
      durable.push(publisher.publish(keys[i]!, `{"i":${i}}`).then(() => void appendsWhenDurable++));
      await new Promise((r) => setTimeout(r, 10));
    }
    const publishing = Date.now() - started;
    await Promise.all(durable);
    await publisher.close(1_000);

    // One append per record (or per 10 ms publish) would be about 100 of them.
    expect(journal.appends).toBeLessThanOrEqual(Math.ceil(publishing / APPEND_MS) + 2);
    expect(appendsWhenDurable).toBe(100);
    expect(publisher.stats).toMatchObject({ journalled: 100, refused: 0 });
    const replayed: string[] = [];
    const reopened = new AuditJournal({ dir, segmentBytes: 1 << 20, maxBytes: 1 << 30 });
    await reopened.open();
    await reopened.replay(async (batch) => void replayed.push(...batch.map((e) => e.key)), 500);
    await reopened.close();
    expect(replayed).toEqual(keys);
  });
});
