/**
 * Prometheus metrics of the refresher, in prom-client's default registry (served by
 * shared/metrics-server.ts): runs, failures and durations of every scheduled job, and per
 * capability the age of the current snapshot and of its data, their limits and consecutive failures.
 */
import type { Job, Worker } from 'bullmq';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { CapabilityDef } from '../../shared/capabilities/registry.ts';
import type { SnapshotStore } from '../../shared/capabilities/store.ts';
import type { Logger } from '../../shared/logger.ts';
import { within } from '../../shared/metrics-server.ts';

/** A job `capability:<name>` is counted as `<name>`, so the task label matches the capability label. */
const task = (job: Job | undefined) => (job?.name ?? 'unknown').replace(/^capability:/, '');

export interface RefresherMetricsDeps {
  worker: Worker;
  store: SnapshotStore;
  defs: readonly CapabilityDef[];
  log: Logger;
}

export function registerRefresherMetrics({ worker, store, defs, log }: RefresherMetricsDeps): void {
  registerJobMetrics(worker, [...defs.map((d) => d.name), 'audit-retention']);
  registerSnapshotMetrics(store, defs, log);
  registerLimitMetrics(defs);
}

/** Runs, failures and durations of every job attempt, by task. */
function registerJobMetrics(worker: Worker, tasks: string[]): void {
  const runs = new Counter({
    name: 'frs_refresher_runs_total',
    help: 'Finished job attempts (a failed attempt retried later counts again), by task',
    labelNames: ['task'],
  });
  const failures = new Counter({
    name: 'frs_refresher_failures_total',
    help: 'Failed job attempts, by task',
    labelNames: ['task'],
  });
  const duration = new Histogram({
    name: 'frs_refresher_run_duration_seconds',
    help: 'Duration of one job attempt, by task',
    labelNames: ['task'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  });
  const finished = (job: Job | undefined) => {
    runs.inc({ task: task(job) });
    if (job?.processedOn && job.finishedOn) {
      duration.observe({ task: task(job) }, Math.max(0, job.finishedOn - job.processedOn) / 1000);
    }
  };
  // Start every series at 0, so an increase() over the first failure is not lost.
  for (const name of tasks) {
    runs.inc({ task: name }, 0);
    failures.inc({ task: name }, 0);
  }
  worker.on('completed', (job) => finished(job));
  worker.on('failed', (job) => {
    finished(job);
    failures.inc({ task: task(job) });
  });
}

/** Per capability, read from Redis at scrape time: the age of its snapshot and data, its failures. */
function registerSnapshotMetrics(store: SnapshotStore, defs: readonly CapabilityDef[], log: Logger): void {
  const readFailures = new Counter({
    name: 'frs_refresher_status_read_failures_total',
    help: 'Scrapes that could not read the capabilities status from Redis',
  });
  type Status = Awaited<ReturnType<SnapshotStore['read']>>;
  const names = defs.map((d) => d.name);
  // The gauges of one scrape are collected together (prom-client starts them all at once): they
  // share the read in flight, and the next scrape reads again.
  let inflight: Promise<Status | undefined> | undefined;
  const readStatus = (): Promise<Status | undefined> =>
    (inflight ??= within(store.read(names), 3_000)
      .catch((err: unknown) => {
        readFailures.inc();
        log.warn({ err }, 'could not read capability status');
        return undefined;
      })
      .finally(() => (inflight = undefined)));
  const perCapability = (name: string, help: string, value: (s: Status[number]) => number | undefined) =>
    new Gauge({
      name,
      help,
      labelNames: ['capability'],
      async collect() {
        this.reset();
        const status = await readStatus();
        if (!status) return;
        for (const [i, def] of defs.entries()) {
          const v = value(status[i]!);
          if (v !== undefined) this.set({ capability: def.name }, v);
        }
      },
    });
  perCapability(
    'frs_refresher_snapshot_age_seconds',
    'Seconds since the capability source was last fetched and validated (absent: never)',
    (s) =>
      s.status?.refreshed_at
        ? Math.max(0, (Date.now() - Date.parse(s.status.refreshed_at)) / 1000)
        : undefined,
  );
  perCapability(
    'frs_refresher_data_age_seconds',
    'Seconds since the data of the current snapshot was taken (its data_as_of; absent: undated or none)',
    (s) =>
      s.meta?.data_as_of ? Math.max(0, (Date.now() - Date.parse(s.meta.data_as_of)) / 1000) : undefined,
  );
  perCapability(
    'frs_refresher_consecutive_failures',
    'Failed refreshes of the capability since its last success',
    (s) => s.status?.consecutive_failures ?? 0,
  );
}

/** Each capability's limits: constants, exported so alerts can compare the ages with them. */
function registerLimitMetrics(defs: readonly CapabilityDef[]): void {
  const freshness = new Gauge({
    name: 'frs_refresher_snapshot_freshness_seconds',
    help: 'Freshness limit of the capability: an older snapshot is degraded',
    labelNames: ['capability'],
  });
  for (const def of defs) freshness.set({ capability: def.name }, def.freshnessS);
  const maxDataAge = new Gauge({
    name: 'frs_refresher_max_data_age_seconds',
    help: 'Maximum data age of the capability: older data is stale (degraded)',
    labelNames: ['capability'],
  });
  for (const def of defs) maxDataAge.set({ capability: def.name }, def.maxDataAgeS);
}
