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

  it('takes a comma list of node URLs, each checked', () => {
    expect(loadConfig({ CLICKHOUSE_URL: 'http://a:8123,http://b:8123' }).CLICKHOUSE_URL).toBe(
      'http://a:8123,http://b:8123',
    );
    expect(() => loadConfig({ CLICKHOUSE_URL: 'http://a:8123,b:8123' })).toThrow(
      /CLICKHOUSE_URL: expected http/,
    );
  });
});
