import { ClickHouseError } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '../../../shared/clients/clickhouse.ts';
import { failoverClient } from '../../../shared/clients/clickhouse-failover.ts';
import { dropExpiredPartitions, onClusterCommand, RETENTION_DDL_TIMEOUT_S } from './retention.ts';

const NOW = new Date('2026-11-27T12:00:00Z');

/** A client whose parts listing holds two expired months and a kept one; commands are recorded. */
function fakeClickHouse(fail?: (query: string) => Error | undefined) {
  const commands: Record<string, unknown>[] = [];
  const client = {
    query: async () => ({
      json: async () => [{ partition: '202501' }, { partition: '202502' }, { partition: '202611' }],
    }),
    command: async (params: Record<string, unknown>) => {
      commands.push(params);
      const err = fail?.(params.query as string);
      if (err) throw err;
      return {};
    },
  };
  return { client: client as unknown as ClickHouseClient, commands };
}

describe('audit retention on a cluster', () => {
  it('bounds every ON CLUSTER drop on the server and on the client', async () => {
    const { client, commands } = fakeClickHouse();
    const result = await dropExpiredPartitions(client, 'frs', NOW, 'scores', 'frs');
    expect(result.dropped).toEqual(['202501', '202502']);
    expect(commands.map((c) => c.query)).toEqual([
      'ALTER TABLE frs.scores_local ON CLUSTER frs DROP PARTITION 202501',
      'ALTER TABLE frs.scores_local ON CLUSTER frs DROP PARTITION 202502',
    ]);
    for (const c of commands) {
      expect(c.clickhouse_settings).toEqual({
        distributed_ddl_task_timeout: String(RETENTION_DDL_TIMEOUT_S),
        wait_end_of_query: 1,
      });
      expect(c.abort_signal).toBeInstanceOf(AbortSignal);
    }
  });

  it('gives up on the client only after the server, and before the client request timeout', async () => {
    const { abort_signal } = onClusterCommand('ALTER …', 1);
    await new Promise((r) => setTimeout(r, 1_200));
    // Still open past the server's 1 s: its error, naming the late hosts, is the one to read.
    expect(abort_signal.aborted).toBe(false);
    // The default is short of the clients' 30 s request timeout with the margin (5 s).
    expect(RETENTION_DDL_TIMEOUT_S * 1000 + 5_000).toBeLessThan(30_000);
  });

  it('leaves one server alone: no ON CLUSTER, no settings', async () => {
    const { client, commands } = fakeClickHouse();
    await dropExpiredPartitions(client, 'frs', NOW, 'outcomes');
    expect(commands).toEqual([
      { query: 'ALTER TABLE frs.outcomes DROP PARTITION 202501' },
      { query: 'ALTER TABLE frs.outcomes DROP PARTITION 202502' },
    ]);
  });

  it('fails saying which drop timed out, and stops there', async () => {
    const timeout = new ClickHouseError({
      message:
        'Watching task /clickhouse/task_queue/ddl/query-0000000007 is executing longer than distributed_ddl_task_timeout (=20) seconds. There are 1 unfinished hosts',
      code: '159',
      type: 'TIMEOUT_EXCEEDED',
    });
    const { client, commands } = fakeClickHouse((q) => (q.endsWith('202501') ? timeout : undefined));
    const run = dropExpiredPartitions(client, 'frs', NOW, 'scores', 'frs');
    await expect(run).rejects.toThrow(
      /^audit retention: partition 202501 of frs.scores_local not dropped on every host of cluster frs \(waited at most 20 s\): Watching task .*query-0000000007.*; a host that is late still runs the queued drop/,
    );
    await expect(run).rejects.toMatchObject({ cause: timeout });
    expect(commands).toHaveLength(1);
  });

  it('is not sent to another node once its own deadline passed', async () => {
    const sent: string[] = [];
    const node = (name: string) =>
      ({
        command: async (params: { abort_signal?: AbortSignal }) => {
          sent.push(name);
          await new Promise((_, reject) =>
            params.abort_signal?.addEventListener('abort', () =>
              reject(new Error('The user aborted a request.')),
            ),
          );
        },
      }) as unknown as ClickHouseClient;
    const ch = failoverClient([node('a'), node('b')]);
    await expect(ch.command({ query: 'ALTER …', abort_signal: AbortSignal.timeout(50) })).rejects.toThrow(
      /aborted/,
    );
    // A node that failed for a reason of its own is still passed over (clickhouse-failover.test.ts).
    expect(sent).toEqual(['a']);
  });
});
