import { ClickHouseError, type ClickHouseClient } from '@clickhouse/client';

/**
 * ClickHouse error codes after which another node may well succeed: 242, a replica that lost its
 * ZooKeeper session and turned read-only; 999, a ZooKeeper error of that node.
 */
const NODE_TROUBLE = new Set(['242', '999']);

/**
 * The code of an error the server answered with. The client makes a ClickHouseError only of text
 * that ends in a `(TYPE)`, which ClickHouse 18.16 does not write (`Code: 159, e.displayText() =
 * DB::Exception: …`): its answers come as plain Errors, and would otherwise be taken for an
 * unreachable node and the statement sent to every other node in turn (an ON CLUSTER one queued
 * once per node).
 */
function serverErrorCode(err: unknown): string | undefined {
  if (err instanceof ClickHouseError) return err.code;
  if (err instanceof Error) return /^Code: (\d+), e\.displayText\(\) = /.exec(err.message)?.[1];
  return undefined;
}

/** A node that could not be reached, or that cannot serve the statement for a reason of its own. */
export function isNodeFailure(err: unknown): boolean {
  const code = serverErrorCode(err);
  if (code !== undefined) return NODE_TROUBLE.has(code);
  return err instanceof Error;
}

/** Whether the call's own `abort_signal` fired (the client does not look at one already fired). */
function callerGaveUp(params: unknown): boolean {
  const signal = (params as { abort_signal?: AbortSignal } | undefined)?.abort_signal;
  return signal?.aborted === true;
}

type Method = 'query' | 'command' | 'insert' | 'exec' | 'ping';

/**
 * One client over several nodes of a cluster: each call goes to the node that answered last and,
 * when that node fails (unreachable, timed out, read-only replica), to the next one in order,
 * once round. A statement's own error (bad SQL, a refused row) is thrown as is: every node would
 * refuse it. Every table a service names is Distributed, so any node answers for the whole
 * cluster, and a retried insert is byte-identical (replicated block deduplication drops a
 * repeat of one that did land). A call whose `abort_signal` fired is not sent to another node.
 */
export function failoverClient(clients: readonly ClickHouseClient[]): ClickHouseClient {
  let current = 0;
  const call =
    (method: Method) =>
    async (params?: unknown): Promise<unknown> => {
      let lastError: unknown;
      for (let tried = 0; tried < clients.length; tried++) {
        const index = (current + tried) % clients.length;
        const client = clients[index]! as unknown as Record<Method, (p?: unknown) => Promise<unknown>>;
        try {
          const result = await client[method](params);
          current = index;
          return result;
        } catch (err) {
          // A caller whose own deadline passed gave up on the statement, not on the node: an ON
          // CLUSTER one is already queued for every host, and resending it would queue it again.
          if (!isNodeFailure(err) || callerGaveUp(params)) throw err;
          lastError = err;
        }
      }
      throw lastError;
    };
  const methods = {
    query: call('query'),
    command: call('command'),
    insert: call('insert'),
    exec: call('exec'),
    ping: call('ping'),
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
    },
  };
  // The services use only these methods; the class's private fields make a cast necessary.
  return methods as unknown as ClickHouseClient;
}
