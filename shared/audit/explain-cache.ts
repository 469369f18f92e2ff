import type { StoredScore } from './history.ts';
import type { AuditRecord } from './record.ts';
import type { Redis } from '../clients/redis.ts';
import type { Logger } from '../logger.ts';
import { SecondWindow } from '../second-window.ts';

/**
 * Long enough to cover the audit pipeline's normal lag and a short Kafka or ClickHouse outage;
 * short because every score of the last TTL sits in Redis memory (about 3 KB each).
 */
export const EXPLAIN_TTL_SECONDS = 15 * 60;

/**
 * Keyed by organisation too: a lookup of another organisation's fresh score misses the cache and
 * takes the same path as an unknown id, so its timing tells nothing about whether the id exists.
 */
export const explainKey = (orgId: string, scoreId: string) => `frs:explain:${orgId}:${scoreId}`;

/**
 * Commands waiting on the cache connection, at most. A frozen cache server keeps its connection
 * open: the client keeps every unanswered SET (~3 KB each, even one that timed out) to match
 * replies in order, and holds back the next auto-pipeline until the current one is answered.
 * Past this many the copy is skipped and explain answers from ClickHouse once the pipeline
 * delivers.
 */
export const MAX_PENDING_COPIES = 2_000;

/**
 * Copies one organisation may write per second per node. The cache server evicts by nearest
 * expiry, which is age across all tenants: without a share, one busy organisation would push out
 * every other tenant's copies. At ~3 KB a copy for 15 minutes this is at most ~270 MB per
 * organisation per node; its scores past the share are explained from ClickHouse once delivered.
 */
export const DEFAULT_COPIES_PER_ORG_PER_S = 100;

/**
 * A short-lived Redis copy of each audit record so `/v1/explain` answers the moment a score is
 * returned, before the audit pipeline has written it to ClickHouse.
 */
export class ExplainCache {
  private readonly redis: Redis;
  private readonly log: Logger;
  private readonly maxPending: number;
  private readonly perOrg: SecondWindow;
  private readonly copiesPerOrgPerSecond: number;
  /** Copies not written: Redis unreachable, too slow (see MAX_PENDING_COPIES), or an error. */
  failed = 0;
  /** Copies not written because the organisation was over its share this second. */
  overShare = 0;

  constructor(
    redis: Redis,
    log: Logger,
    maxPending = MAX_PENDING_COPIES,
    copiesPerOrgPerSecond = DEFAULT_COPIES_PER_ORG_PER_S,
  ) {
    this.redis = redis;
    this.log = log;
    this.maxPending = maxPending;
    this.copiesPerOrgPerSecond = copiesPerOrgPerSecond;
    this.perOrg = new SecondWindow(100_000);
  }

  /**
   * Fire and forget: the SET rides the client's auto-pipeline and the caller never awaits it.
   * Skipped while Redis is disconnected, or too slow to answer (MAX_PENDING_COPIES), so writes
   * never pile up in memory; ClickHouse answers for those scores once the pipeline delivers them.
   */
  put(orgId: string, scoreId: string, recordJson: string): void {
    if (this.perOrg.hit(orgId, Date.now()) > this.copiesPerOrgPerSecond) {
      this.overShare++;
      return;
    }
    const pending = this.redis.commandQueue.length + this.redis.autoPipelineQueueSize;
    if (this.redis.status !== 'ready' || pending >= this.maxPending) {
      if (this.failed++ % 1000 === 0) this.log.warn({ pending }, 'explain copies skipped');
      return;
    }
    this.redis.set(explainKey(orgId, scoreId), recordJson, 'EX', EXPLAIN_TTL_SECONDS).catch((err) => {
      if (this.failed++ % 1000 === 0) this.log.warn({ err }, 'explain copy not written to redis');
    });
  }

  /** The cached score, or null when absent, expired, or Redis is unavailable. */
  async get(orgId: string, scoreId: string): Promise<StoredScore | null> {
    let raw: string | null;
    try {
      raw = await this.redis.get(explainKey(orgId, scoreId));
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
