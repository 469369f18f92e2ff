import type { Job, Processor, Queue } from 'bullmq';
import type { RefresherJob } from './jobs/job.ts';

/** Name of the refresher's one queue; every scheduled job of the refresher runs through it. */
export const REFRESHER_QUEUE = 'refresher';

/** Upserts one job scheduler per job: restarts and extra refresher processes make no duplicates. */
export async function registerSchedulers(queue: Queue, jobs: RefresherJob[]): Promise<void> {
  for (const job of jobs) {
    await queue.upsertJobScheduler(job.name, job.repeat, {
      name: job.name,
      opts: {
        removeOnComplete: 100,
        removeOnFail: 500,
        ...(job.attempts ? { attempts: job.attempts } : {}),
        ...(job.backoff ? { backoff: job.backoff } : {}),
      },
    });
  }
}

/**
 * The worker's processor: runs the job registered under the BullMQ job's name. The worker runs
 * one job per registered name at once (its concurrency is the number of jobs), so a slow source
 * (the routing tables) never holds up a quick one (the hourly Tor list); a job whose previous run
 * of the same name is still going joins that run instead of starting a second one: one run per
 * source at a time.
 */
export function dispatcher(jobs: RefresherJob[]): Processor {
  const byName = new Map(jobs.map((j) => [j.name, j]));
  const running = new Map<string, Promise<unknown>>();
  return async (job: Job) => {
    const target = byName.get(job.name);
    if (!target) throw new Error(`no refresher job named ${job.name}`);
    const inFlight = running.get(job.name);
    if (inFlight) return inFlight;
    const run = target.run().finally(() => running.delete(job.name));
    running.set(job.name, run);
    return run;
  };
}
