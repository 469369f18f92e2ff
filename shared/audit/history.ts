import type { ClickHouseClient } from '../clients/clickhouse.ts';
import { quote, quoteIdent } from '../clients/sql.ts';
import { scoreIdTime } from '../ids.ts';
import { readRows, StoredScoreRow } from '../clickhouse/rows.ts';

/** Explain serves a score for 13 months after it was made; storage drops whole months later. */
export const RETENTION_MONTHS = 13;

export interface StoredScore {
  score_id: string;
  org_id: string;
  scored_at_ms: number;
  request: Record<string, unknown>;
  response: Record<string, unknown>;
  evidence: Record<string, unknown>;
}

export function retainedUntil(scoredAtMs: number): Date {
  const d = new Date(scoredAtMs);
  d.setUTCMonth(d.getUTCMonth() + RETENTION_MONTHS);
  return d;
}

/**
 * Reads stored scores from ClickHouse. On a cluster, `replicas` holds a client per node: the
 * Distributed read asks one replica of the score's shard, which may not have fetched a part its
 * twin just took, so a score it misses is looked up in each node's own replica (`scores_local`)
 * before it is called unknown.
 */
export class ScoreHistory {
  private readonly ch: ClickHouseClient;
  private readonly table: string;
  private readonly replicas: readonly ClickHouseClient[];

  constructor(ch: ClickHouseClient, database: string, replicas: readonly ClickHouseClient[] = []) {
    this.ch = ch;
    this.table = `${quoteIdent(database)}.scores`;
    this.replicas = replicas;
  }

  /**
   * One score of one organisation. The UUIDv7 time in the id pins `scored_at` to one second, so
   * the lookup reads one partition and one primary-key range.
   */
  async find(orgId: string, scoreId: string): Promise<StoredScore | null> {
    const ms = scoreIdTime(scoreId);
    if (ms === null) return null;
    const sec = Math.floor(ms / 1000);
    const found = await this.lookup(this.ch, this.table, orgId, sec, scoreId);
    if (found || this.replicas.length === 0) return found;
    for (const replica of this.replicas) {
      // A node that does not answer is skipped: its shard's other replica is asked too.
      const local = await this.lookup(replica, `${this.table}_local`, orgId, sec, scoreId).catch(() => null);
      if (local) return local;
    }
    return null;
  }

  private async lookup(
    ch: ClickHouseClient,
    table: string,
    orgId: string,
    sec: number,
    scoreId: string,
  ): Promise<StoredScore | null> {
    const rs = await ch.query({
      query: `SELECT score_id, org_id, scored_at_ms, request_json, response_json, evidence_json
              FROM ${table}
              WHERE org_id = ${quote(orgId)} AND scored_at = toDateTime(${sec}) AND score_id = ${quote(scoreId)}
              LIMIT 1`,
      format: 'JSONEachRow',
    });
    const [row] = await readRows(rs, StoredScoreRow);
    if (!row) return null;
    return {
      score_id: row.score_id,
      org_id: row.org_id,
      scored_at_ms: row.scored_at_ms,
      request: JSON.parse(row.request_json),
      response: JSON.parse(row.response_json),
      evidence: JSON.parse(row.evidence_json),
    };
  }
}
