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

/** Reads stored scores from ClickHouse. */
export class ScoreHistory {
  private readonly ch: ClickHouseClient;
  private readonly table: string;

  constructor(ch: ClickHouseClient, database: string) {
    this.ch = ch;
    this.table = `${quoteIdent(database)}.scores`;
  }

  /**
   * One score of one organisation. The UUIDv7 time in the id pins `scored_at` to one second, so
   * the lookup reads one partition and one primary-key range.
   */
  async find(orgId: string, scoreId: string): Promise<StoredScore | null> {
    const ms = scoreIdTime(scoreId);
    if (ms === null) return null;
    const sec = Math.floor(ms / 1000);
    const rs = await this.ch.query({
      query: `SELECT score_id, org_id, scored_at_ms, request_json, response_json, evidence_json
              FROM ${this.table}
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
