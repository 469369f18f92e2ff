import { mkdir, open, readdir, readFile, rm, rmdir, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/** One Kafka message as the publisher sends it: key is the score id, value the record JSON. */
export interface JournalEntry {
  key: string;
  value: string;
}

export interface AuditJournalOptions {
  /** Directory owned by this node alone; a lock file enforces it. */
  dir: string;
  /** Roll to a new segment once the current one reaches this size. */
  segmentBytes: number;
  /** Total size of all segments; appends beyond it are refused (the caller counts them lost). */
  maxBytes: number;
}

const SEGMENT = /^seg-(\d{16})\.ndjson$/;
const LOCK = 'LOCK';

/**
 * Local append-only spill file for audit records while Kafka is unreachable.
 *
 * Records are NDJSON-like lines `<score_id>\t<record json>` in numbered segment files. Every
 * `append` writes one batch and fsyncs it, so a batch that `append` resolved survives a SIGKILL or
 * power cut. A line torn by a crash lacks its trailing newline and is ignored on replay. Segments
 * are replayed oldest first and deleted only after Kafka acknowledged all of their records, so a
 * crash during replay re-sends a segment (duplicates are harmless downstream: ReplacingMergeTree).
 * All operations are serialised on one promise chain.
 */
export class AuditJournal {
  private readonly opts: AuditJournalOptions;
  private chain: Promise<unknown> = Promise.resolve();
  private active: { seq: number; fh: FileHandle; bytes: number } | undefined;
  private nextSeq = 1;
  private totalBytes = 0;

  constructor(opts: AuditJournalOptions) {
    this.opts = opts;
  }

  /** Creates the directory, takes the lock and measures what earlier runs left behind. */
  async open(): Promise<void> {
    // Records hold personal data (phone numbers, IPs): only the service's own user may read them.
    await mkdir(this.opts.dir, { recursive: true, mode: 0o700 });
    await this.lock();
    for (const seq of await this.segments()) {
      this.totalBytes += (await stat(this.path(seq))).size;
      this.nextSeq = Math.max(this.nextSeq, seq + 1);
    }
  }

  /** Bytes held in all segments. */
  get bytes(): number {
    return this.totalBytes;
  }

  /** True when segments (closed or active) hold records not yet replayed. */
  async hasPending(): Promise<boolean> {
    return this.serial(async () => (await this.segments()).length > 0);
  }

  /**
   * Appends one batch and fsyncs it. Resolves to the number of entries refused because the
   * journal is full (0 normally); those are the only records the journal loses.
   */
  append(entries: JournalEntry[]): Promise<number> {
    return this.serial(async () => {
      const lines: string[] = [];
      let size = 0;
      for (const e of entries) {
        const line = `${e.key}\t${e.value}\n`;
        const n = Buffer.byteLength(line);
        if (this.totalBytes + size + n > this.opts.maxBytes) break;
        lines.push(line);
        size += n;
      }
      if (lines.length > 0) {
        const seg = await this.activeSegment();
        await seg.fh.write(lines.join(''));
        await seg.fh.sync();
        seg.bytes += size;
        this.totalBytes += size;
        if (seg.bytes >= this.opts.segmentBytes) await this.closeActive();
      }
      return entries.length - lines.length;
    });
  }

  /**
   * Hands every record in the journal, oldest segment first, to `send` in chunks of `chunk`,
   * deleting each segment once all of it was sent. Appends made meanwhile land in a new segment
   * and are replayed in the same call. Resolves to true when the journal is empty afterwards;
   * a failing `send` rejects and leaves the unsent segments in place.
   */
  async replay(send: (batch: JournalEntry[]) => Promise<void>, chunk: number): Promise<boolean> {
    for (;;) {
      const seqs = await this.serial(async () => {
        await this.closeActive();
        return this.segments();
      });
      if (seqs.length === 0) return true;
      for (const seq of seqs) {
        const entries = parseSegment(await readFile(this.path(seq), 'utf8'));
        for (let i = 0; i < entries.length; i += chunk) await send(entries.slice(i, i + chunk));
        await this.serial(async () => {
          const size = (await stat(this.path(seq))).size;
          await rm(this.path(seq));
          this.totalBytes -= size;
        });
      }
    }
  }

  /** Closes the active segment and releases the lock; pending segments stay for the next start. */
  async close(): Promise<void> {
    await this.serial(async () => {
      await this.closeActive();
      await rm(join(this.opts.dir, LOCK), { force: true });
      // An empty journal leaves no trace; one with segments stays for the next start to replay.
      await rmdir(this.opts.dir).catch(() => undefined);
    });
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async activeSegment() {
    if (!this.active) {
      const seq = this.nextSeq++;
      const fh = await open(this.path(seq), 'a', 0o600);
      this.active = { seq, fh, bytes: 0 };
    }
    return this.active;
  }

  private async closeActive(): Promise<void> {
    const seg = this.active;
    this.active = undefined;
    if (seg) await seg.fh.close();
  }

  private async segments(): Promise<number[]> {
    return (await readdir(this.opts.dir))
      .map((f) => SEGMENT.exec(f)?.[1])
      .filter((s): s is string => s !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  }

  private path(seq: number): string {
    return join(this.opts.dir, `seg-${String(seq).padStart(16, '0')}.ndjson`);
  }

  /**
   * One live process per journal directory: two nodes appending to and replaying the same
   * segments would send records twice and delete each other's files. A lock left by a dead
   * process (SIGKILL) is taken over.
   */
  private async lock(): Promise<void> {
    const file = join(this.opts.dir, LOCK);
    try {
      const holder = Number((await readFile(file, 'utf8')).trim());
      if (holder && holder !== process.pid && isAlive(holder)) {
        throw new Error(`audit journal ${this.opts.dir} is held by live process ${holder}`);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const fh = await open(file, 'w', 0o600);
    await fh.write(String(process.pid));
    await fh.sync();
    await fh.close();
  }
}

/** Complete lines only: a crash can leave a final line without its newline, which is dropped. */
export function parseSegment(text: string): JournalEntry[] {
  const out: JournalEntry[] = [];
  const end = text.lastIndexOf('\n');
  if (end < 0) return out;
  for (const line of text.slice(0, end).split('\n')) {
    const tab = line.indexOf('\t');
    if (tab <= 0) continue;
    out.push({ key: line.slice(0, tab), value: line.slice(tab + 1) });
  }
  return out;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
