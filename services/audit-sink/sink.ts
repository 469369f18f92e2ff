import type { Consumer, EachBatchPayload, Kafka, KafkaMessage, Producer } from 'kafkajs';
import type { z } from 'zod';
import { AuditRecordEnvelope } from '../../shared/audit/record.ts';
import type { ClickHouseClient } from '../../shared/clients/clickhouse.ts';
import {
  OUTCOMES_DLQ_TOPIC,
  OUTCOMES_TOPIC,
  SCORES_DLQ_TOPIC,
  SCORES_TOPIC,
} from '../../shared/clients/kafka.ts';
import { OutcomeRecord, toOutcomeRow } from '../../shared/outcomes/record.ts';
import { quoteIdent } from '../../shared/clients/sql.ts';
import { canonicalSubjects } from '../../shared/capabilities/subject-key.ts';
import type { Logger } from '../../shared/logger.ts';
import { commitBatch } from './batch-steps.ts';
import { Backoff } from '../../shared/retry.ts';
import { dlqRecords } from './dlq-metrics.ts';
import { insertSplitting } from './quarantine.ts';

export interface SinkOptions {
  groupId: string;
  database: string;
  /** Longest pause between insert retries while ClickHouse is down. */
  maxBackoffMs: number;
  /**
   * The broker holds a fetch until this many bytes are ready or `maxWaitMs` passed: at a few KB a
   * record this makes inserts of thousands of rows, about one per second per partition, which is
   * what MergeTree wants (each insert is a part to merge).
   */
  minBytes: number;
  maxWaitMs: number;
  /**
   * Handed each batch's decoded score records before they are inserted, and not awaited: the
   * portal's Activity feed (activity.ts) rides on the sink's decode instead of a consumer of its own.
   */
  onScores?: (records: AuditRecordEnvelope[]) => void;
}

/** The row of `scores` an audit record becomes (column comments live in the migration). */
export function toRow(r: AuditRecordEnvelope) {
  const res = r.response;
  return {
    score_id: r.score_id,
    org_id: r.org_id,
    scored_at: Math.floor(r.scored_at_ms / 1000),
    scored_at_ms: r.scored_at_ms,
    tier: r.tier,
    score_version: res.score_version,
    score: res.score,
    band: res.band,
    recommended_action: res.recommended_action,
    coverage: res.coverage ?? '',
    primary_risk_factor: r.evidence.primary_risk_factor?.code ?? '',
    degraded_sources: res.degraded_sources,
    has_phone: r.request.subject.phone_number ? 1 : 0,
    has_ip: r.request.subject.ip_address ? 1 : 0,
    latency_ms: r.latency_ms,
    node_id: r.node_id,
    client_reference: res.client_reference ?? '',
    record_version: r.v,
    request_json: JSON.stringify(r.request),
    response_json: JSON.stringify(res),
    evidence_json: JSON.stringify(r.evidence),
    raw_risk: r.raw_risk ?? 0,
    fired_components: r.fired_components ?? [],
    context_effect: r.context_effect ?? '',
    challenger_version: r.challenger?.score_version ?? '',
    challenger_score: r.challenger?.score ?? null,
    challenger_band: r.challenger?.band ?? '',
    request_digest: r.request_digest ?? '',
    phone_lookup_provider: r.phone_lookup?.provider ?? '',
    phone_lookup_outcome: r.phone_lookup?.outcome ?? '',
  };
}

/**
 * The rows of `scored_subjects` a batch of audit records adds: each organisation's subjects by UTC
 * day with the batch's earliest score of that day (the ledger's trust rule reads them, see
 * migration 007).
 */
export function scoredSubjectRows(records: readonly AuditRecordEnvelope[]) {
  const rows = new Map<
    string,
    { org_id: string; subject: string; scored_on: string; scored_at_ms: number; keep: number }
  >();
  for (const r of records) {
    const scoredOn = new Date(r.scored_at_ms).toISOString().slice(0, 10);
    const scoredAt = r.scored_at_ms;
    for (const subject of canonicalSubjects(r.request.subject)) {
      const key = `${r.org_id}\n${subject}\n${scoredOn}`;
      const before = rows.get(key);
      if (before && before.scored_at_ms <= scoredAt) continue;
      rows.set(key, {
        org_id: r.org_id,
        subject,
        scored_on: scoredOn,
        scored_at_ms: scoredAt,
        keep: Number.MAX_SAFE_INTEGER - scoredAt,
      });
    }
  }
  return [...rows.values()];
}

type Decoded<T = AuditRecordEnvelope> = { ok: true; record: T } | { ok: false; reason: string };

export function decode(message: KafkaMessage): Decoded {
  return decodeWith(AuditRecordEnvelope, message);
}

function decodeWith<T>(schema: z.ZodType<T>, message: KafkaMessage): Decoded<T> {
  if (!message.value) return { ok: false, reason: 'empty message' };
  let json: unknown;
  try {
    json = JSON.parse(message.value.toString('utf8'));
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    return {
      ok: false,
      reason:
        `schema: ${parsed.error.issues.map((i) => i.path.join('.') + ' ' + i.message).join('; ')}`.slice(
          0,
          500,
        ),
    };
  }
  return { ok: true, record: parsed.data };
}

interface DeadLetter {
  message: KafkaMessage;
  reason: string;
  stage: 'decode' | 'insert';
  /** ClickHouse's error code, for a record it refused. */
  errorCode?: string;
}

/**
 * What one consumed topic becomes: rows of a table, undecodable or refused records to its DLQ,
 * and, for scores, the rows a second table derives from the same records (inserted after the
 * first, before offsets move on). `R` is the topic's record as its schema decodes it.
 */
export interface SinkStream<R> {
  table: string;
  dlq: string;
  row: (message: KafkaMessage) => { ok: true; row: object; record: R } | { ok: false; reason: string };
  derived?: { table: string; rows: (records: R[]) => object[] };
  /** Sees the batch's decoded records once, before the insert (SinkOptions.onScores). */
  observe?: (records: R[]) => void;
}

function rowOf<T>(d: Decoded<T>, toRowFn: (record: T) => object) {
  return d.ok ? { ok: true as const, row: toRowFn(d.record), record: d.record } : d;
}

/**
 * Inserts rows already stamped with their batch's inserted_at, then the rows derived from their
 * records: the same slice always becomes the same bytes, so a retry after a timeout that did
 * reach ClickHouse is dropped by a replicated table's block deduplication, and one that is not
 * (a re-delivery after a restart, a journal replay) collapses under FINAL by the table's key.
 */
export async function insertSlice<R>(
  ch: ClickHouseClient,
  target: Pick<SinkStream<R>, 'table' | 'derived'>,
  slice: readonly { row: object; record: R }[],
): Promise<void> {
  await ch.insert({ table: target.table, values: slice.map((r) => r.row), format: 'JSONEachRow' });
  const derived = target.derived?.rows(slice.map((r) => r.record));
  if (derived && derived.length > 0) {
    await ch.insert({ table: target.derived!.table, values: derived, format: 'JSONEachRow' });
  }
}

/**
 * Consumes `scores.v1` into `scores` and `outcomes.v1` into `outcomes`, each record once. Offsets
 * are committed only after ClickHouse accepted the batch; while it is down the batch is retried
 * with backoff and consumption waits. Records that cannot be decoded, and records ClickHouse
 * refuses for their content (found by splitting the refused batch, see quarantine.ts), go
 * unchanged to the topic's dead-letter topic (`scores.v1.dlq`, `outcomes.v1.dlq`) with reason
 * headers; the rest of the batch is inserted and offsets move on. Re-delivery is harmless: both
 * tables are ReplacingMergeTrees keyed on the record's id.
 */
export class AuditSink {
  /** Public for its instrumentation events (metrics and readiness watch them). */
  readonly consumer: Consumer;
  private readonly dlq: Producer;
  private readonly ch: ClickHouseClient;
  private readonly log: Logger;
  private readonly opts: SinkOptions;
  private readonly scores: SinkStream<AuditRecordEnvelope>;
  private readonly outcomes: SinkStream<OutcomeRecord>;
  inserted = 0;
  deadLettered = 0;

  constructor(kafka: Kafka, ch: ClickHouseClient, log: Logger, opts: SinkOptions) {
    this.consumer = kafka.consumer({
      groupId: opts.groupId,
      minBytes: opts.minBytes,
      maxWaitTimeInMs: opts.maxWaitMs,
      // Fetch sizes count compressed bytes, and the API gzips its batches (several-fold on JSON):
      // 2 MiB a partition is thousands of rows per insert while bounding the decompressed
      // batch a backlog can hand the sink at once.
      maxBytes: 6 * 1024 * 1024,
      maxBytesPerPartition: 2 * 1024 * 1024,
    });
    this.dlq = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    this.ch = ch;
    this.log = log;
    this.opts = opts;
    const db = quoteIdent(opts.database);
    this.scores = {
      table: `${db}.scores`,
      dlq: SCORES_DLQ_TOPIC,
      row: (m) => rowOf(decode(m), toRow),
      derived: { table: `${db}.scored_subjects`, rows: scoredSubjectRows },
      ...(opts.onScores && { observe: opts.onScores }),
    };
    this.outcomes = {
      table: `${db}.outcomes`,
      dlq: OUTCOMES_DLQ_TOPIC,
      row: (m) => rowOf(decodeWith(OutcomeRecord, m), toOutcomeRow),
    };
  }

  async start(): Promise<void> {
    await this.dlq.connect();
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [SCORES_TOPIC, OUTCOMES_TOPIC], fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      // Partitions insert independently, so one slow partition does not hold the others' lag.
      partitionsConsumedConcurrently: 3,
      eachBatchAutoResolve: false,
      eachBatch: (payload) =>
        payload.batch.topic === SCORES_TOPIC
          ? this.handleBatch(this.scores, payload)
          : this.handleBatch(this.outcomes, payload),
    });
  }

  private async handleBatch<R>(
    stream: SinkStream<R>,
    { batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload,
  ) {
    // Set here, not left to the column DEFAULT: 18.16 fills columns a JSONEachRow row omits with
    // the type's zero, not with the DEFAULT expression. Once per batch, not per attempt, so a
    // retried insert sends the same bytes and a replicated table drops it as a duplicate block.
    const insertedAt = Math.floor(Date.now() / 1000);
    const rows: { row: object; record: R; message: KafkaMessage }[] = [];
    const bad: DeadLetter[] = [];
    for (const message of batch.messages) {
      const d = stream.row(message);
      if (d.ok) rows.push({ row: { ...d.row, inserted_at: insertedAt }, record: d.record, message });
      else bad.push({ message, reason: d.reason, stage: 'decode' });
    }
    stream.observe?.(rows.map((r) => r.record));
    await this.deadLetter(batch.topic, batch.partition, bad);

    const backoff = new Backoff(100, this.opts.maxBackoffMs);
    const refused = await insertSplitting(rows, {
      insert: async (slice) => {
        await insertSlice(this.ch, stream, slice);
        this.inserted += slice.length;
        backoff.reset();
      },
      onUnavailable: async (err, count) => {
        this.log.warn({ err, rows: count, backoff: backoff.ms }, 'clickhouse insert failed; retrying');
        await heartbeat().catch(() => undefined);
        await backoff.wait();
      },
      keepGoing: () => isRunning() && !isStale(),
    });
    if (!refused) return;
    await this.deadLetter(
      batch.topic,
      batch.partition,
      refused.map((r) => ({
        message: r.item.message,
        reason: r.reason,
        stage: 'insert' as const,
        ...(r.code !== undefined ? { errorCode: String(r.code) } : {}),
      })),
    );

    await commitBatch(this.consumer, { batch, resolveOffset, heartbeat });
  }

  /** Sends records unchanged (key, value, headers) to the DLQ, with why and where they came from. */
  private async deadLetter(topic: string, partition: number, records: DeadLetter[]): Promise<void> {
    if (records.length === 0) return;
    await this.dlq.send({
      topic: topic === SCORES_TOPIC ? this.scores.dlq : this.outcomes.dlq,
      acks: -1,
      messages: records.map(({ message, reason, stage, errorCode }) => ({
        key: message.key,
        value: message.value,
        headers: {
          ...message.headers,
          'x-dlq-reason': reason,
          'x-dlq-stage': stage,
          ...(errorCode ? { 'x-dlq-error-code': errorCode } : {}),
          'x-dlq-source-topic': topic,
          'x-dlq-source-partition': String(partition),
          'x-dlq-source-offset': message.offset,
        },
      })),
    });
    this.deadLettered += records.length;
    for (const stage of ['decode', 'insert'] as const) {
      const n = records.filter((r) => r.stage === stage).length;
      if (n > 0) dlqRecords.inc({ stage }, n);
    }
    this.log.warn(
      { count: records.length, partition, reasons: [...new Set(records.map((r) => r.reason))].slice(0, 3) },
      'records sent to DLQ',
    );
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
    await this.dlq.disconnect();
  }
}
