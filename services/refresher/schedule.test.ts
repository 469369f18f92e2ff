import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { RefresherJob } from './jobs/job.ts';
import { dispatcher } from './schedule.ts';

/** A job whose runs finish only when the test says so, counting how many started. */
function gated(name: string) {
  const started: (() => void)[] = [];
  const job: RefresherJob = {
    name,
    repeat: { every: 1000 },
    run: () => new Promise<string>((resolve) => started.push(() => resolve(`${name} #${started.length}`))),
  };
  return { job, started };
}

const asJob = (name: string) => ({ name }) as Job;

describe('the refresher dispatcher', () => {
  it('runs one refresh per source at a time: a second job of the same name joins the running one', async () => {
    const tor = gated('capability:a');
    const process = dispatcher([tor.job]);
    const first = process(asJob('capability:a'));
    const second = process(asJob('capability:a'));
    expect(tor.started).toHaveLength(1);
    tor.started[0]!();
    expect(await first).toBe('capability:a #1');
    expect(await second).toBe('capability:a #1');
    // Once it finished, the next job starts a run of its own.
    const third = process(asJob('capability:a'));
    expect(tor.started).toHaveLength(2);
    tor.started[1]!();
    expect(await third).toBe('capability:a #2');
  });

  it('runs different sources side by side: a slow one does not hold up another', async () => {
    const slow = gated('capability:slow');
    const quick = gated('capability:quick');
    const process = dispatcher([slow.job, quick.job]);
    const slowRun = process(asJob('capability:slow'));
    const quickRun = process(asJob('capability:quick'));
    expect([slow.started.length, quick.started.length]).toEqual([1, 1]);
    quick.started[0]!();
    expect(await quickRun).toBe('capability:quick #1');
    slow.started[0]!();
    await slowRun;
  });

  it('refuses a job name nobody registered', async () => {
    await expect(dispatcher([])(asJob('capability:x'))).rejects.toThrow(
      'no refresher job named capability:x',
    );
  });
});
