/**
 * Prometheus metrics of an API node, served at /metrics: request latency by route and status,
 * and gauges read at scrape time from the node's own state (capability status and snapshot age,
 * refresh failures, breaker state, audit buffer depth).
 */
import type { NextFunction, Request, Response } from 'express';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { processMetrics } from '../../shared/metrics-server.ts';
import type { AuditCounters, DurableLane } from './audit-publisher.ts';
import { PUBLISHER_STATES, type PublisherState } from './audit-publisher-state.ts';
import type { CapabilityHealth } from './capabilities/health.ts';

export interface MetricsSources {
  capabilities: () => Record<string, CapabilityHealth>;
  auditDepth: () => number;
  /** The audit publisher's delivery counters and journal size. */
  audit: () => AuditCounters;
  /** The state of each audit publisher, by what it publishes (`scores`, `outcomes`). */
  publisherStates: () => Record<string, PublisherState>;
  /** Explain copies not written since start (cache server down, stalled, or erroring). */
  explainCopiesSkipped: () => number;
  /** Recent-score index entries not written since start (cache server down, stalled, or erroring). */
  recentScoresSkipped: () => number;
}

const STATUS_VALUE = { ok: 0, degraded: 1, unavailable: 2 } as const;
const BREAKER_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

/**
 * The publisher's counters, read at scrape time. Records are spilled to the journal while Kafka is
 * unreachable (or a send stalls), replayed from it later, and dropped only when the journal
 * refused them (full, or a failed write): dropped is audit loss.
 */
function auditMetrics(read: () => AuditCounters, registers: Registry[]): void {
  const counter = (name: string, help: string, value: (c: AuditCounters) => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(value(read()));
      },
    });
  counter('frs_audit_records_sent_total', 'Audit records Kafka acknowledged on a direct send', (c) => c.sent);
  counter(
    'frs_audit_records_raced_total',
    'Audit records also fsynced to the journal because Kafka had not acknowledged them within the race delay',
    (c) => c.raced,
  );
  counter(
    'frs_audit_records_spilled_total',
    'Audit records written to the local journal instead of Kafka',
    (c) => c.spilled,
  );
  counter(
    'frs_audit_records_replayed_total',
    'Audit records replayed from the journal to Kafka',
    (c) => c.replayed,
  );
  counter(
    'frs_audit_records_dropped_total',
    'Audit records the journal refused (full or failing disk): their requests failed unless Kafka took them',
    (c) => c.dropped,
  );
  new Gauge({
    name: 'frs_audit_journal_bytes',
    help: 'Bytes of audit records in the local journal, waiting for replay',
    registers,
    collect() {
      this.set(read().journalBytes);
    },
  });
}

/** Per capability, read at scrape time: status, snapshot and data age, refresh failures, breaker. */
function capabilityMetrics(read: () => Record<string, CapabilityHealth>, registers: Registry[]): void {
  const perCapability = (name: string, help: string, value: (h: CapabilityHealth) => number | undefined) =>
    new Gauge({
      name,
      help,
      labelNames: ['capability'],
      registers,
      collect() {
        this.reset();
        for (const [capability, h] of Object.entries(read())) {
          const v = value(h);
          if (v !== undefined) this.set({ capability }, v);
        }
      },
    });
  perCapability(
    'frs_capability_status',
    'Capability status: 0 ok, 1 degraded, 2 unavailable',
    (h) => STATUS_VALUE[h.status],
  );
  perCapability(
    'frs_capability_snapshot_age_seconds',
    'Seconds since the source was last confirmed',
    (h) => h.age_s,
  );
  perCapability(
    'frs_capability_data_age_seconds',
    'Seconds since the data itself was taken (its data_as_of), whenever it was last fetched',
    (h) => (h.data_as_of ? Math.max(0, (Date.now() - Date.parse(h.data_as_of)) / 1000) : undefined),
  );
  perCapability(
    'frs_capability_data_stale',
    'Whether the data is older than its maximum data age: 1 stale (the capability is degraded), 0 not',
    (h) => (h.stale === undefined ? undefined : Number(h.stale)),
  );
  perCapability(
    'frs_capability_refresh_failures',
    'Consecutive failed refreshes of the capability (0 after a success)',
    (h) => h.consecutive_failures ?? 0,
  );
  perCapability('frs_breaker_state', 'Breaker of a live capability: 0 closed, 1 half-open, 2 open', (h) =>
    h.breaker ? BREAKER_VALUE[h.breaker] : undefined,
  );
}

/** The publishers' state and memory buffer, read at scrape time. */
function publisherMetrics(sources: MetricsSources, registers: Registry[]): void {
  new Gauge({
    name: 'frs_audit_buffer_depth',
    help: 'Audit records waiting in memory for Kafka',
    registers,
    collect() {
      this.set(sources.auditDepth());
    },
  });
  new Gauge({
    name: 'frs_audit_publisher_state',
    help: 'State of each audit publisher: 1 for the one it is in (spilling, replaying, direct, closing), 0 for the others',
    labelNames: ['publisher', 'state'],
    registers,
    collect() {
      this.reset();
      for (const [publisher, current] of Object.entries(sources.publisherStates()))
        for (const state of PUBLISHER_STATES) this.set({ publisher, state }, Number(state === current));
    },
  });
}

/** Writes to the cache server skipped since start (down, stalled, erroring, or over a share). */
function cacheMetrics(sources: MetricsSources, registers: Registry[]): void {
  new Gauge({
    name: 'frs_explain_copies_skipped',
    help: 'Explain copies not written to the cache server since start; those scores are explained from ClickHouse once delivered',
    registers,
    collect() {
      this.set(sources.explainCopiesSkipped());
    },
  });
  new Gauge({
    name: 'frs_recent_scores_skipped',
    help: 'Recent-score index entries not written to the cache server since start; outcomes on those scores fall back to the explain copy, then ClickHouse',
    registers,
    collect() {
      this.set(sources.recentScoresSkipped());
    },
  });
}

export class ApiMetrics {
  readonly registry = new Registry();
  private readonly duration: Histogram<'route' | 'method' | 'status'>;
  private readonly durable: Record<DurableLane, { observe(seconds: number): void }>;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    processMetrics(this.registry);
    this.duration = new Histogram({
      name: 'frs_http_request_duration_seconds',
      help: 'HTTP request latency by route and status',
      labelNames: ['route', 'method', 'status'],
      // Scoring answers in single-digit milliseconds; the tail up to a second matters.
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers,
    });
    const durable = new Histogram({
      name: 'frs_audit_durable_seconds',
      help: 'From a score to its audit record being durable (a 200 waits for this), by the lane that made it so: kafka (acknowledged) or journal (fsynced first)',
      labelNames: ['lane'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    });
    this.durable = { kafka: durable.labels('kafka'), journal: durable.labels('journal') };
    capabilityMetrics(sources.capabilities, registers);
    publisherMetrics(sources, registers);
    auditMetrics(sources.audit, registers);
    cacheMetrics(sources, registers);
  }

  /** One audit record became durable after `ms` (AuditPublisherOptions.onDurable). */
  auditDurable = (lane: DurableLane, ms: number): void => this.durable[lane].observe(ms / 1000);

  /** Times every request; the route label is the matched route pattern, never the raw path. */
  middleware = (req: Request, res: Response, next: NextFunction): void => {
    const end = this.duration.startTimer();
    res.on('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      end({ route, method: req.method, status: String(res.statusCode) });
    });
    next();
  };
}
