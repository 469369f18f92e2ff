import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditJournal, parseSegment } from './audit-journal.ts';

describe('audit journal files', () => {
  it('are readable by the service user only: they hold phone numbers and IPs', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'frs-journal-')), 'node');
    const journal = new AuditJournal({ dir, segmentBytes: 1 << 20, maxBytes: 1 << 24 });
    await journal.open();
    await journal.append([{ key: 'sc_1', value: '{"subject":{"phone_number":"+447911123456"}}' }]);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dir);
    expect(files.length).toBeGreaterThanOrEqual(2); // the lock and one segment
    for (const f of files) expect(statSync(join(dir, f)).mode & 0o777, f).toBe(0o600);
  });
});

describe('journal segment lines', () => {
  it('keeps the topic of a record published to another topic, and the default one otherwise', () => {
    const text = 'sc_1\t{"a":"x y"}\n' + 'oc_2\t{"b":1}\toutcomes.v1\n' + 'sc_3\t{"torn":'; // a crash tore the last line
    expect(parseSegment(text)).toEqual([
      { key: 'sc_1', value: '{"a":"x y"}' },
      { key: 'oc_2', value: '{"b":1}', topic: 'outcomes.v1' },
    ]);
  });
});
