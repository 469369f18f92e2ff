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

/** The worker's processor: runs the job registered under the BullMQ job's name. */
export function dispatcher(jobs: RefresherJob[]): Processor {
  const byName = new Map(jobs.map((j) => [j.name, j]));
  return async (job: Job) => {
    const target = byName.get(job.name);
    if (!target) throw new Error(`no refresher job named ${job.name}`);
    return target.run();
  };
}
