import { z } from 'zod';
import type { StoredScore } from '../../shared/audit/history.ts';
import type { ClickHouseClient } from '../../shared/clients/clickhouse.ts';
import { quote, quoteIdent } from '../../shared/clients/sql.ts';
import { readRows } from '../../shared/clickhouse/rows.ts';
import { scoreIdTime } from '../../shared/ids.ts';
import type { Logger } from '../../shared/logger.ts';
import type { ScoreSummary } from '../../shared/portal/activity.ts';

type Subject = ScoreSummary['subject'];

const RequestRow = z.object({ score_id: z.string(), request_json: z.string() });

function subjectOf(request: unknown): Subject | undefined {
  const s = (request as { subject?: Record<string, unknown> } | null)?.subject;
  if (!s || typeof s !== 'object') return undefined;
  const out: Subject = {};
  if (typeof s.phone_number === 'string') out.phone_number = s.phone_number;
  if (typeof s.ip_address === 'string') out.ip_address = s.ip_address;
  return out;
}

/**
 * The subjects of shown Activity rows in clear, for "Reveal subjects": the feed keeps them masked,
 * so they come from each score's own record, the Redis explain copy first (the first minutes) and
 * then one ClickHouse query for all the rest. A row neither source has yet stays masked.
 */
export class SubjectReveal {
  private readonly recent: { get(orgId: string, scoreId: string): Promise<StoredScore | null> };
  private readonly ch: ClickHouseClient;
  private readonly table: string;
  private readonly log: Logger;

  constructor(deps: {
    recent: { get(orgId: string, scoreId: string): Promise<StoredScore | null> };
    ch: ClickHouseClient;
    database: string;
    log: Logger;
  }) {
    this.recent = deps.recent;
    this.ch = deps.ch;
    this.table = `${quoteIdent(deps.database)}.scores`;
    this.log = deps.log;
  }

  async subjects(orgId: string, scoreIds: string[]): Promise<Map<string, Subject>> {
    const out = new Map<string, Subject>();
    const ids = scoreIds.filter((id) => scoreIdTime(id) !== null);
    const cached = await Promise.all(ids.map((id) => this.recent.get(orgId, id)));
    cached.forEach((c, i) => {
      const s = c && subjectOf(c.request);
      if (s) out.set(ids[i]!, s);
    });
    const rest = ids.filter((id) => !out.has(id));
    if (rest.length === 0) return out;
    // The ids' own times bound the scan to the partitions and key range they can be in.
    const secs = rest.map((id) => Math.floor(scoreIdTime(id)! / 1000));
    try {
      const rs = await this.ch.query({
        query: `SELECT score_id, request_json FROM ${this.table}
                WHERE org_id = ${quote(orgId)}
                  AND scored_at BETWEEN toDateTime(${Math.min(...secs)}) AND toDateTime(${Math.max(...secs)})
                  AND score_id IN (${rest.map(quote).join(', ')})`,
        format: 'JSONEachRow',
      });
      for (const row of await readRows(rs, RequestRow)) {
        const s = subjectOf(JSON.parse(row.request_json));
        if (s) out.set(row.score_id, s);
      }
    } catch (err) {
      // History down: the rows it would have revealed stay masked; the page still renders.
      this.log.warn({ err }, 'activity: subjects not revealed, clickhouse unavailable');
    }
    return out;
  }
}
