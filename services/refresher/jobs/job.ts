import type { RepeatOptions } from 'bullmq';

/**
 * One scheduled job of the refresher. Its `name` is also its job-scheduler id, so registering the
 * same job again (every start of every refresher) updates the one scheduler instead of adding one.
 */
export interface RefresherJob {
  name: string;
  repeat: Omit<RepeatOptions, 'key'>;
  run: () => Promise<unknown>;
}
