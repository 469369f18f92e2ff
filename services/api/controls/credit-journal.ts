import { createHash } from 'node:crypto';
import { mkdir, open, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What a node's local controls bill while Redis is slow or unreachable, on disk before the 200
 * leaves, so the node's death does not lose it: the node started again with the same NODE_ID
 * (the same directory) reads it back and settles it (`recover`).
 *
 * One line of JSON per event, appended in order:
 * - `a` a request billed locally (`k` its credits key);
 * - `u` an idempotent request answered locally, to be settled by settle.lua (`k`, `i` its
 *   idempotency entry, `f` its body fingerprint);
 * - `r` a local admission refunded (the request failed: `k` for a billed one, none for `u`);
 * - `b` a batch of a key's credits about to be sent to Redis (reconcile.lua, `n` credits): it
 *   covers every `a` and `r` of that key before it;
 * - `d` a batch or a `u` that Redis now holds.
 * Appends of one event-loop turn share one write and one fdatasync (group commit). The file is
 * emptied whenever nothing is left to settle. A line torn by a crash is ignored.
 */
export type CreditEvent =
  | { t: 'a'; id: string; k: string }
  | { t: 'u'; id: string; k: string; i: string; f: string }
  | { t: 'r'; id: string; k?: string }
  | { t: 'b'; id: string; k: string; n: number }
  | { t: 'd'; id: string };

/** What a node left unsettled: batches to send again with their ids, idempotent requests to settle. */
export interface Unsettled {
  batches: Map<string, { key: string; n: number }>;
  /**
   * Credits of `a` lines no batch covers yet, by credits key (net of refunds), each with a batch id
   * made from the lines it covers: read again after a crash while settling, the same lines give the
   * same id, which reconcile.lua counts once.
   */
  loose: Map<string, { n: number; id: string }>;
  idempotent: Map<string, { key: string; idemKey: string; fp: string }>;
}

export class CreditJournal {
  private readonly file: string;
  private fh: FileHandle | undefined;
  private buffer: string[] = [];
  private waiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;

  constructor(dir: string) {
    this.file = join(dir, 'credits.ndjson');
  }

  /** Reads what an earlier run of this node left; the file stays until `compact` empties it. */
  async open(): Promise<Unsettled> {
    await mkdir(join(this.file, '..'), { recursive: true, mode: 0o700 });
    const text = await readFile(this.file, 'utf8').catch(() => '');
    this.fh = await open(this.file, 'a', 0o600);
    return unsettledOf(text);
  }

  /** Resolves once the event is on disk, with every other event of this turn. */
  append(event: CreditEvent): Promise<void> {
    if (!this.fh) return Promise.resolve();
    this.buffer.push(`${JSON.stringify(event)}\n`);
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (!this.flushing) this.flushing = new Promise<void>((r) => setImmediate(r)).then(() => this.flush());
    return done;
  }

  /** Empties the file if `idle()` still holds once everything buffered is written. */
  async compact(idle: () => boolean): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.fh && idle() && this.buffer.length === 0) await this.fh.truncate(0);
  }

  async close(): Promise<void> {
    while (this.flushing) await this.flushing;
    await this.fh?.close();
    this.fh = undefined;
  }

  private async flush(): Promise<void> {
    const lines = this.buffer;
    const waiters = this.waiters;
    this.buffer = [];
    this.waiters = [];
    try {
      await this.fh!.write(lines.join(''));
      await this.fh!.datasync();
      for (const w of waiters) w.resolve();
    } catch (err) {
      for (const w of waiters) w.reject(err);
    } finally {
      this.flushing = undefined;
      if (this.buffer.length > 0)
        this.flushing = new Promise<void>((r) => setImmediate(r)).then(() => this.flush());
    }
  }
}

/** Replays the events in order (exported for its unit test). */
export function unsettledOf(text: string): Unsettled {
  const out: Unsettled = { batches: new Map(), loose: new Map(), idempotent: new Map() };
  const loose = new Map<string, { n: number; ids: string[] }>();
  const add = (k: string, n: number, id: string) => {
    const l = loose.get(k) ?? { n: 0, ids: [] };
    l.n += n;
    l.ids.push(id);
    loose.set(k, l);
  };
  const end = text.lastIndexOf('\n');
  for (const line of end < 0 ? [] : text.slice(0, end).split('\n')) {
    let e: CreditEvent;
    try {
      e = JSON.parse(line) as CreditEvent;
    } catch {
      continue;
    }
    if (e.t === 'a') add(e.k, 1, e.id);
    else if (e.t === 'u') out.idempotent.set(e.id, { key: e.k, idemKey: e.i, fp: e.f });
    else if (e.t === 'r') {
      if (e.k) add(e.k, -1, e.id);
      else out.idempotent.delete(e.id);
    } else if (e.t === 'b') {
      out.batches.set(e.id, { key: e.k, n: e.n });
      // The batch took everything of its key until here (a drain takes a key's whole ledger).
      loose.delete(e.k);
    } else if (e.t === 'd') {
      out.batches.delete(e.id);
      out.idempotent.delete(e.id);
    }
  }
  for (const [k, l] of loose)
    if (l.n !== 0)
      out.loose.set(k, {
        n: l.n,
        id: createHash('sha256')
          .update(`${k}\n${l.ids.join('\n')}`)
          .digest('hex')
          .slice(0, 32),
      });
  return out;
}
