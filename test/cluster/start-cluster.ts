/**
 * `npm run test:cluster`: the smoke test of `npm run start:cluster`, outside `npm test` (it runs
 * some twenty processes on fixed ports, 3 GiB of memory, for a minute or two).
 *
 * Starts it as Ctrl-C would find it (its own process group), waits for both API nodes to be
 * ready, scores once on each with the demo bureau key from the credentials file the start wrote,
 * checks GET /v1/health reports the cluster topology with no address in it and that each score
 * reaches ClickHouse through the Distributed table exactly once, then sends SIGINT to the group
 * and checks nothing listens on the topology's ports any more and the single-node servers that
 * were running still are. Exits non-zero at the first failure, stopping what it started.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import {
  CLUSTER_API_PORTS as API_PORTS,
  CLUSTER_CLICKHOUSE as CLICKHOUSE,
  CLUSTER_TOPOLOGY_PORTS as TOPOLOGY_PORTS,
  SINGLE_PORTS,
  listeningOf,
  startCluster,
} from '../../infra/harness/cluster-start.ts';
import { observeFor, waitFor } from '../../infra/harness/wait.ts';
import { DEMO_CREDENTIALS_FILE } from '../../infra/local/demo-credentials.ts';
import { HealthResponse } from '../../shared/contract/response.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const STACK = process.env.FRS_STACK_DIR ?? join(ROOT, '.stack');
const START_TIMEOUT_MS = 240_000;
const STOP_TIMEOUT_MS = 120_000;

const t0 = performance.now();
const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
const step = (what: string) => console.log(`[test:cluster] ${elapsed()} ${what}`);

const taken = await listeningOf(TOPOLOGY_PORTS);
assert.deepEqual(taken, [], `ports already in use before the start: ${taken.join(', ')}`);
const singleBefore = await listeningOf(SINGLE_PORTS);

step('npm run start:cluster');
const start = startCluster();

async function clickhouseCount(scoreId: string): Promise<number> {
  // The Distributed table over the two shards, as the services read it.
  const query = `SELECT count() FROM frs.scores WHERE score_id = '${scoreId}'`;
  const res = await fetch(`${CLICKHOUSE}/?query=${encodeURIComponent(query)}`);
  const text = await res.text();
  assert.ok(res.ok, `ClickHouse answered ${res.status}: ${text}`);
  return Number(text.trim());
}

async function checks(): Promise<void> {
  await start.waitReady(START_TIMEOUT_MS);
  step('both API nodes ready');

  const credentials = JSON.parse(readFileSync(join(STACK, 'cluster', DEMO_CREDENTIALS_FILE), 'utf8')) as {
    bureau: { api_key: string };
  };
  for (const port of API_PORTS) {
    const text = await (await fetch(`http://127.0.0.1:${port}/v1/health`)).text();
    assert.doesNotMatch(text, /127\.0\.0\.1|localhost|:(7000|1919\d|1813\d)\b/, 'an address in /v1/health');
    assert.deepEqual(HealthResponse.parse(JSON.parse(text)).topology, {
      redis: { mode: 'cluster', nodes: 3 },
      kafka: { brokers: 3, replication_factor: 3, min_insync_replicas: 2 },
      clickhouse: { cluster: 'frs', nodes: 4 },
      api: { nodes: 2 },
    });
  }
  step('health reports the cluster: Redis 3 primaries, 3 brokers, ClickHouse frs of 4 nodes, 2 API nodes');

  const scoreIds: string[] = [];
  for (const port of API_PORTS) {
    const res = await fetch(`http://127.0.0.1:${port}/v1/score`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credentials.bureau.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ subject: { phone_number: '+447911123456', ip_address: '81.2.69.142' } }),
    });
    const body = (await res.json()) as { score_id?: string };
    assert.equal(res.status, 200, `score on :${port}: ${JSON.stringify(body)}`);
    scoreIds.push(body.score_id!);
  }
  step(`scored on both nodes: ${scoreIds.join(', ')}`);

  for (const id of scoreIds) {
    await waitFor(`${id} in ClickHouse`, async () => (await clickhouseCount(id)) > 0, 60_000, 500).catch(
      () => undefined,
    );
  }
  // Exactly once: a second delivery (a redelivered batch, both sinks of the group) would show now.
  await observeFor(5_000);
  for (const id of scoreIds) assert.equal(await clickhouseCount(id), 1, `rows of ${id} in frs.scores`);
  step('each score is in ClickHouse (Distributed frs.scores) exactly once');
}

try {
  await checks();
} catch (err) {
  console.error(start.tail());
  await start.stop(STOP_TIMEOUT_MS).catch(() => undefined);
  throw err;
}

step('SIGINT');
const [code, signal] = await start.stop(STOP_TIMEOUT_MS);
assert.equal(code, 0, `start:cluster exited with ${signal ?? code}`);
step('start:cluster exited 0');
const left = await listeningOf(TOPOLOGY_PORTS);
assert.deepEqual(left, [], `still listening after the stop: ${left.join(', ')}`);
assert.deepEqual(await listeningOf(SINGLE_PORTS), singleBefore, 'a single-node dev server changed');
step('nothing left on the topology ports; the single-node servers are as they were');
