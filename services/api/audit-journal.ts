import { mkdir, open, readdir, readFile, rm, rmdir, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * One Kafka message as the publisher sends it: key is the record's id (a score id), value the
 * record JSON, topic where it goes (absent: the publisher's default topic).
 */
export interface JournalEntry {
  key: string;
  value: string;
  topic?: string;
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
 * Local append-only file that makes audit records durable when Kafka is slower than a disk, or
 * unreachable.
 *
 * Records are NDJSON-like lines `<key>\t<record json>[\t<topic>]` in numbered segment files (JSON
 * never holds a raw tab, so the line splits unambiguously; no topic means the default one). Every
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

  /**
   * Appends one batch and fsyncs it. Resolves to the segment written and the number of entries
   * refused because the journal is full (0 normally): the caller must deliver those another way.
   */
  append(entries: JournalEntry[]): Promise<{ seq: number; refused: number }> {
    return this.serial(async () => {
      const lines: string[] = [];
      let size = 0;
      for (const e of entries) {
        const line = e.topic === undefined ? `${e.key}\t${e.value}\n` : `${e.key}\t${e.value}\t${e.topic}\n`;
        const n = Buffer.byteLength(line);
        if (this.totalBytes + size + n > this.opts.maxBytes) break;
        lines.push(line);
        size += n;
      }
      const seg = await this.activeSegment();
      const seq = seg.seq;
      if (lines.length > 0) {
        await seg.fh.write(lines.join(''));
        // The file's data only: its size is implied by the data, the rest is metadata we never read.
        await seg.fh.datasync();
        seg.bytes += size;
        this.totalBytes += size;
        if (seg.bytes >= this.opts.segmentBytes) await this.closeActive();
      }
      return { seq, refused: entries.length - lines.length };
    });
  }

  /** The segment the next append goes to, if one is open. */
  get activeSeq(): number | undefined {
    return this.active?.seq;
  }

  /** Closes the active segment, so later appends start a new one; resolves to every segment on disk. */
  seal(): Promise<number[]> {
    return this.serial(async () => {
      await this.closeActive();
      return this.segments();
    });
  }

  /** The complete records of one segment. */
  async read(seq: number): Promise<JournalEntry[]> {
    return parseSegment(await readFile(this.path(seq), 'utf8'));
  }

  /** Deletes a segment whose records are all in Kafka (closing it first if it is the active one). */
  remove(seq: number): Promise<void> {
    return this.serial(async () => {
      if (this.active?.seq === seq) await this.closeActive();
      const size = await stat(this.path(seq)).then(
        (s) => s.size,
        () => 0,
      );
      await rm(this.path(seq), { force: true });
      this.totalBytes -= size;
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
      const seqs = await this.seal();
      if (seqs.length === 0) return true;
      for (const seq of seqs) {
        const entries = await this.read(seq);
        for (let i = 0; i < entries.length; i += chunk) await send(entries.slice(i, i + chunk));
        await this.remove(seq);
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
    const last = line.lastIndexOf('\t');
    if (last === tab) out.push({ key: line.slice(0, tab), value: line.slice(tab + 1) });
    else out.push({ key: line.slice(0, tab), value: line.slice(tab + 1, last), topic: line.slice(last + 1) });
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
