/**
 * The admissions of one event-loop turn that carry no Idempotency-Key, as one run of admit.lua per
 * organisation window. Sent one script each, every scoring request cost the node a command of its
 * own: its arguments encoded, a command object, a promise and a reply to decode. An organisation
 * scoring at its rate limit has many requests in each turn, and they differ in nothing the script
 * reads: the same rate window, credits key and limits.
 *
 * The script admits the run's requests one after the other, exactly as it admits one (the order
 * they reached this node in), so the outcome of each is what one script per request would have
 * given. Gathered until the turn's I/O callbacks have run (setImmediate, where the client's
 * auto-pipeline writes too), the run rides the turn's write with the ledger's reads.
 *
 * An idempotent request is admitted by a script of its own: its entry and claim are its own.
 */
import type { AdmitReply } from './admit-args.ts';

/**
 * Requests per run at most: a fuller run is sent at once. A run of 200 holds Redis about 0.5 ms
 * (`INFO commandstats` on Redis 7.0: 480 µs a run, 2.4 µs a request).
 */
const MAX_PER_RUN = 200;

/** Sends one run: admit.lua over `rate` and `credits` with `args`, for `count` requests. */
export type SendRun = (
  rate: string,
  credits: string,
  args: (string | number)[],
  count: number,
) => Promise<unknown[]>;

interface Run {
  rate: string;
  credits: string;
  args: (string | number)[];
  waiters: { resolve: (reply: AdmitReply) => void; reject: (err: unknown) => void }[];
}

export class AdmitBatch {
  private readonly send: SendRun;
  private runs = new Map<string, Run>();
  private scheduled = false;

  constructor(send: SendRun) {
    this.send = send;
  }

  /**
   * Admits one request without Idempotency-Key. `args` are admit.lua's ARGV without the count;
   * requests are run together only when their keys and arguments are all the same.
   */
  admit(rate: string, credits: string, args: (string | number)[]): Promise<AdmitReply> {
    const group = `${rate}\n${credits}\n${args.join('\n')}`;
    let run = this.runs.get(group);
    if (run === undefined) {
      run = { rate, credits, args, waiters: [] };
      this.runs.set(group, run);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    }
    const { promise, resolve, reject } = Promise.withResolvers<AdmitReply>();
    run.waiters.push({ resolve, reject });
    if (run.waiters.length >= MAX_PER_RUN) {
      this.runs.delete(group);
      this.sendRun(run);
    }
    return promise;
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const runs = this.runs;
    this.runs = new Map();
    for (const run of runs.values()) this.sendRun(run);
  };

  private sendRun(run: Run): void {
    this.send(run.rate, run.credits, run.args, run.waiters.length).then(
      (flat) => {
        // Three values a request, in the order they were admitted.
        run.waiters.forEach((w, i) => w.resolve(flat.slice(3 * i, 3 * i + 3) as AdmitReply));
      },
      (err: unknown) => {
        for (const w of run.waiters) w.reject(err);
      },
    );
  }
}
