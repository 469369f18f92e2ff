import type { StoredScore } from '../../shared/audit/history.ts';
import type { AuditRecord } from '../../shared/audit/record.ts';
import type { Redis } from '../../shared/clients/redis.ts';
import type { Logger } from '../../shared/logger.ts';

/**
 * Long enough to cover the audit pipeline's normal lag and a short Kafka or ClickHouse outage;
 * short because every score of the last TTL sits in Redis memory (about 3 KB each).
 */
export const EXPLAIN_TTL_SECONDS = 15 * 60;

export const explainKey = (scoreId: string) => `frs:explain:${scoreId}`;

/**
 * A short-lived Redis copy of each audit record so `/v1/explain` answers the moment a score is
 * returned, before the audit pipeline has written it to ClickHouse.
 */
export class ExplainCache {
  private readonly redis: Redis;
  private readonly log: Logger;
  failed = 0;

  constructor(redis: Redis, log: Logger) {
    this.redis = redis;
    this.log = log;
  }

  /**
   * Fire and forget: the SET rides the client's auto-pipeline and the caller never awaits it.
   * Skipped while Redis is disconnected so writes do not pile up in the offline queue; ClickHouse
   * answers for those scores once the pipeline delivers them.
   */
  put(scoreId: string, recordJson: string): void {
    if (this.redis.status !== 'ready') {
      this.failed++;
      return;
    }
    this.redis.set(explainKey(scoreId), recordJson, 'EX', EXPLAIN_TTL_SECONDS).catch((err) => {
      if (this.failed++ % 1000 === 0)
        this.log.warn({ err: String(err) }, 'explain copy not written to redis');
    });
  }

  /** The cached score, or null when absent, expired, or Redis is unavailable. */
  async get(scoreId: string): Promise<StoredScore | null> {
    let raw: string | null;
    try {
      raw = await this.redis.get(explainKey(scoreId));
    } catch {
      return null;
    }
    if (!raw) return null;
    const r = JSON.parse(raw) as AuditRecord;
    return {
      score_id: r.score_id,
      org_id: r.org_id,
      scored_at_ms: r.scored_at_ms,
      request: r.request,
      response: r.response,
      evidence: r.evidence,
    };
  }
}
