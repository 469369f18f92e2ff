import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { readRows, ServerVersionRow } from '../clickhouse/rows.ts';

export type { ClickHouseClient };

export function createClickHouse(url: string, opts: { requestTimeoutMs?: number } = {}): ClickHouseClient {
  return createClient({
    url,
    request_timeout: opts.requestTimeoutMs ?? 30_000,
    // ClickHouse 18.16 (the Debian server of the dev machines) rejects some settings newer
    // clients send by default; keep the wire plain so one client speaks to both.
    compression: { request: false, response: false },
  });
}

/** `major.minor` of the server, read once so callers can use features newer servers have (TTL). */
export async function serverVersion(ch: ClickHouseClient): Promise<[number, number]> {
  const rs = await ch.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' });
  const [row] = await readRows(rs, ServerVersionRow);
  const [major, minor] = (row?.v ?? '0.0').split('.').map(Number);
  return [major ?? 0, minor ?? 0];
}
