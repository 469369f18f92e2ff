import { Counter } from 'prom-client';

/**
 * Records the sink moved to `scores.v1.dlq`, by stage: `decode` (not an audit record) or
 * `insert` (ClickHouse refused it for its content). Registered in prom-client's default registry,
 * which the sink's /metrics serves. Any increase wants a look: the API refuses what cannot be
 * stored, so a DLQ record is a bug or a record produced by something other than the API.
 */
export const dlqRecords = new Counter({
  name: 'frs_sink_dlq_records_total',
  help: 'Audit records moved to scores.v1.dlq, by stage (decode: unreadable; insert: refused by ClickHouse)',
  labelNames: ['stage'] as const,
});
