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
  override async append(entries: JournalEntry[]): Promise<number> {
    this.appends++;
    await new Promise((r) => setTimeout(r, APPEND_MS));
    return super.append(entries);
  }
}

describe('AuditPublisher spilling to a slow journal', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('groups the records queued during one append into the next, and keeps their order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'frs-publisher-'));
    dirs.push(dir);
    const journal = new SlowDiskJournal({ dir, segmentBytes: 1 << 20, maxBytes: 1 << 30 });
    // Nothing listens on port 1: the publisher stays in spill mode throughout.
    const kafka = createKafka(['127.0.0.1:1'], 'frs-publisher-test', { retry: { retries: 0 } });
    const publisher = new AuditPublisher(kafka, journal, createLogger('test', 'silent'));
    await publisher.start();

    const started = Date.now();
    const keys: string[] = [];
    for (let i = 0; i < 100; i++) {
      keys.push(`sc_${String(i).padStart(3, '0')}`);
      publisher.publish(keys[i]!, `{"i":${i}}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const publishing = Date.now() - started;
    await publisher.close(1_000);

    // One append per tick that found records would be about publishing / 20 of them.
    expect(journal.appends).toBeLessThanOrEqual(Math.ceil(publishing / APPEND_MS) + 2);
    expect(publisher.stats).toMatchObject({ spilled: 100, dropped: 0 });
    const replayed: string[] = [];
    const reopened = new AuditJournal({ dir, segmentBytes: 1 << 20, maxBytes: 1 << 30 });
    await reopened.open();
    await reopened.replay(async (batch) => void replayed.push(...batch.map((e) => e.key)), 500);
    await reopened.close();
    expect(replayed).toEqual(keys);
  });
});
