import { ClickHouseError } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { isNodeFailure } from './clickhouse-failover.ts';

const chError = (code: string) => new ClickHouseError({ message: 'x', code, type: undefined });

describe('ClickHouse failover', () => {
  it('moves on for an unreachable or read-only node, not for an error of the statement', () => {
    expect(isNodeFailure(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(
      true,
    );
    expect(isNodeFailure(new Error('Timeout error.'))).toBe(true);
    expect(isNodeFailure(chError('242'))).toBe(true);
    expect(isNodeFailure(chError('62'))).toBe(false);
    expect(isNodeFailure(chError('60'))).toBe(false);
  });

  it('reads the code of a ClickHouse 18.16 answer, which the client leaves a plain Error', () => {
    const answer = (code: number, text: string) =>
      new Error(`Code: ${code}, e.displayText() = DB::Exception: ${text}, e.what() = DB::Exception\n`);
    const timeout = answer(
      159,
      'Watching task /clickhouse/task_queue/ddl/query-0000000017 is executing longer than distributed_ddl_task_timeout (=2) seconds',
    );
    expect(isNodeFailure(timeout)).toBe(false);
    expect(isNodeFailure(answer(62, 'Syntax error: failed at position 1'))).toBe(false);
    expect(isNodeFailure(answer(242, 'Table is in readonly mode'))).toBe(true);
    expect(isNodeFailure(answer(999, 'Coordination::Exception: Connection loss'))).toBe(true);
    // Only at the start: a message quoting such text is no answer of the server.
    expect(isNodeFailure(new Error('socket hang up near "Code: 62, e.displayText() = "'))).toBe(true);
  });

  it('takes a comma list of node URLs, each checked', () => {
    expect(loadConfig({ CLICKHOUSE_URL: 'http://a:8123,http://b:8123' }).CLICKHOUSE_URL).toBe(
      'http://a:8123,http://b:8123',
    );
    expect(() => loadConfig({ CLICKHOUSE_URL: 'http://a:8123,b:8123' })).toThrow(
      /CLICKHOUSE_URL: expected http/,
    );
  });
});
