import { decode, toRow } from '../../services/audit-sink/sink.ts';
import type { AuditRecordEnvelope } from '../../shared/audit/record.ts';

/** A score id whose UUIDv7 time prefix is `ms`, as the API mints them. */
export const scoreIdAt = (ms: number, n: number) =>
  `sc_${ms.toString(16).padStart(12, '0')}7${n.toString(16).padStart(19, '0')}`;

/** An audit record of `orgId` as the sink decodes it from Kafka; `extra` adds or replaces members. */
export function auditRecord(
  orgId: string,
  scoreId: string,
  scoredAtMs: number,
  extra: Record<string, unknown> = {},
): AuditRecordEnvelope {
  const d = decode({
    key: null,
    value: Buffer.from(
      JSON.stringify({
        v: 1,
        score_id: scoreId,
        org_id: orgId,
        tier: 'bureau',
        scored_at: new Date(scoredAtMs).toISOString(),
        scored_at_ms: scoredAtMs,
        node_id: 'n1',
        latency_ms: 3,
        request: { subject: { phone_number: '+447400123456', ip_address: '81.2.69.160' } },
        response: {
          score_id: scoreId,
          score_version: '2026.11.0',
          score: 42,
          band: 'medium',
          recommended_action: 'investigate',
          coverage: 'partial',
          degraded_sources: [],
        },
        evidence: { components: [], primary_risk_factor: { code: 'CLI_IMPOSSIBLE' } },
        ...extra,
      }),
    ),
    offset: '0',
    timestamp: '0',
    attributes: 0,
    headers: {},
  });
  if (!d.ok) throw new Error(d.reason);
  return d.record;
}

/** `n` records of one organisation, a millisecond apart, as one batch's slice for insertSlice. */
export function sinkSlice(orgId: string, n: number, insertedAt: number) {
  const start = Date.now() - 60_000;
  return Array.from({ length: n }, (_, i) => {
    const record = auditRecord(orgId, scoreIdAt(start + i, i), start + i);
    return { row: { ...toRow(record), inserted_at: insertedAt }, record };
  });
}
