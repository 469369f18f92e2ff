import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { orgWithKey, scoreCall } from '../../infra/harness/fixtures.ts';
import { startApi } from '../../infra/harness/processes.ts';
import { pace, waitFor } from '../../infra/harness/wait.ts';

/** Clients that keep sending, one request after another, each on its own keep-alive connection. */
const CLIENTS = 4;
/** How long the clients keep sending at most: longer than the node may take to exit. */
const CLIENTS_FOR_MS = 30_000;

describe('API node shutdown', () => {
  it('SIGTERM while clients keep their keep-alive connections busy: answers what it received, then exits 0', async () => {
    const org = await orgWithKey('bureau', { rateRps: 10_000, credits: 1_000_000 });
    const api = await startApi();
    const exit = once(api.proc, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    let exited = false;
    void exit.then(() => (exited = true));

    const answered: number[] = [];
    const client = async (c: number) => {
      const until = Date.now() + CLIENTS_FOR_MS;
      for (let i = 0; !exited && Date.now() < until; i++) {
        try {
          const res = await scoreCall(api.url, org.apiKey, {
            subject: { phone_number: `+4479111${String(c * 10_000 + i).padStart(5, '0')}` },
          });
          await res.arrayBuffer();
          answered.push(res.status);
        } catch {
          // Once the listener is closed new connections are refused: the client keeps trying.
          await pace(20); // the client's pace between refused connections
        }
      }
    };
    const clients = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
    try {
      // Every client on a keep-alive connection that has carried requests already.
      await waitFor('the clients to be answered', async () => answered.length >= CLIENTS * 5, 30_000, 20);
      api.proc.kill('SIGTERM');
      // Without draining, a connection busy at SIGTERM survives server.close() and the node keeps
      // serving it for as long as its client sends: the clients would stop first.
      const first = await Promise.race([
        exit.then(() => 'node exited'),
        clients.then(() => 'clients stopped'),
      ]);
      expect(first).toBe('node exited');
      const [code] = await exit;
      expect(code).toBe(0);
      await clients;
      expect(answered.length).toBeGreaterThan(0);
      expect(answered.filter((s) => s !== 200)).toEqual([]);
      expect(api.output()).not.toContain('shutdown error');
    } finally {
      await api.stop('SIGKILL');
    }
  });
});
