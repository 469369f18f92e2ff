import type { BackoffOptions, RepeatOptions } from 'bullmq';

/**
 * One scheduled job of the refresher. Its `name` is also its job-scheduler id, so registering the
 * same job again (every start of every refresher) updates the one scheduler instead of adding one.
 */
export interface RefresherJob {
  name: string;
  repeat: Omit<RepeatOptions, 'key'>;
  /** Tries per run (default 1) and the wait between them. */
  attempts?: number;
  backoff?: BackoffOptions;
  run: () => Promise<unknown>;
}
