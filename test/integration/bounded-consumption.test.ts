import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newScoreId } from '../../shared/ids.ts';
import { orgWithKey, redis, scoreCall } from '../../infra/harness/fixtures.ts';
import { startNode, type InProcessNode } from '../helpers/in-process.ts';
import { waitFor } from '../../infra/harness/wait.ts';

/** What one caller can consume: explain and refused requests are budgeted, slow or huge bodies cut. */
describe('bounded consumption per caller', () => {
  let api: InProcessNode;

  beforeAll(async () => {
    api = await startNode({
      HTTP_REQUEST_TIMEOUT_MS: '2000',
      HTTP_HEADERS_TIMEOUT_MS: '2000',
      EXPLAIN_LOOKUPS_MAX: '1',
      METRICS_TOKEN: 'metrics-token-for-the-test',
    });
  });

  afterAll(async () => {
    await api?.stop();
  });

  const explain = (apiKey: string, id = newScoreId()) =>
    fetch(`${api.url}/v1/explain/${id}`, { headers: { authorization: `Bearer ${apiKey}` } });

  async function statuses(responses: Promise<Response>[]): Promise<number[]> {
    return Promise.all(
      responses.map(async (p) => {
        const r = await p;
        if (r.status === 429) expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        await r.arrayBuffer();
        return r.status;
      }),
    );
  }

  it('explain is limited to the organisation rate (verify: 10/s)', async () => {
    const { apiKey } = await orgWithKey('verify');
    const got = await statuses(Array.from({ length: 60 }, () => explain(apiKey)));
    expect(got.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(got.every((s) => [404, 429, 503].includes(s))).toBe(true);
  });

  it('explain lookups in ClickHouse beyond the concurrency limit answer 503 with Retry-After', async () => {
    const { apiKey } = await orgWithKey('bureau', { rateRps: 100_000 });
    const responses = await Promise.all(Array.from({ length: 30 }, () => explain(apiKey)));
    const busy = responses.filter((r) => r.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy[0]!.headers.get('retry-after')).toBe('1');
    expect(((await busy[0]!.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe(
      'E_HISTORY_BUSY',
    );
  });

  it('refused requests of an organisation are limited to its rate; the error list is capped', async () => {
    const { apiKey } = await orgWithKey('verify');
    // 59 KB of unknown fields: one 422 lists at most 20 items.
    const body = JSON.stringify(
      Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`f${i}`.padEnd(24, 'x'), 1])),
    );
    expect(body.length).toBeGreaterThan(50_000);
    const first = await scoreCall(api.url, apiKey, body);
    const text = await first.text();
    expect(first.status).toBe(422);
    expect(text.length).toBeLessThan(5_000);
    // One after another: refusals are counted as they are answered, so a sustained stream of
    // them meets the budget (10 a second for verify) within its first second.
    const got: number[] = [];
    for (let i = 0; i < 60; i++) got.push(...(await statuses([scoreCall(api.url, apiKey, '{"subject":')])));
    expect(got.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(got.every((s) => s === 400 || s === 429)).toBe(true);
  });

  /** A raw connection, to send bytes as slowly or as wrongly as a hostile client would. */
  async function rawSocket(): Promise<{ socket: Socket; received: () => string; closed: Promise<unknown> }> {
    const socket = connect(api.port, '127.0.0.1');
    await once(socket, 'connect');
    let data = '';
    socket.on('data', (d) => (data += d));
    socket.on('error', () => undefined);
    return { socket, received: () => data, closed: once(socket, 'close') };
  }

  it('a body trickled a byte at a time is cut with 408 after the request timeout', async () => {
    const { apiKey } = await orgWithKey('verify');
    const { socket, received, closed } = await rawSocket();
    socket.write(
      `POST /v1/score HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{',
    );
    const started = Date.now();
    const trickle = setInterval(() => socket.writable && socket.write(' '), 500);
    try {
      await waitFor(
        'the node to close the slow connection',
        async () => socket.destroyed || received().length > 0,
        30_000,
      );
      await closed;
    } finally {
      clearInterval(trickle);
    }
    expect(received()).toMatch(/^HTTP\/1\.1 408/);
    // Bounded by the configured 2 s plus the 1 s check interval, with slack for a loaded machine.
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('a 413 for a huge Content-Length closes the connection instead of reading the body', async () => {
    const { apiKey } = await orgWithKey('verify');
    const { socket, received, closed } = await rawSocket();
    socket.write(
      `POST /v1/score HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{"subject":',
    );
    await closed;
    expect(received()).toMatch(/^HTTP\/1\.1 413/);
    expect(received()).toMatch(/connection: close/i);
  });
  it('/metrics answers only the bearer of METRICS_TOKEN', async () => {
    const without = await fetch(`${api.url}/metrics`);
    expect(without.status).toBe(404);
    const wrong = await fetch(`${api.url}/metrics`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(404);
    const right = await fetch(`${api.url}/metrics`, {
      headers: { authorization: 'Bearer metrics-token-for-the-test' },
    });
    expect(right.status).toBe(200);
    const text = await right.text();
    expect(text).toMatch(/frs_http_request_duration_seconds/);
    // The durable Redis' memory bound, as the server reports it (the stack sets one).
    const r = redis();
    try {
      const [, max] = (await r.config('GET', 'maxmemory')) as [string, string];
      expect(text).toContain(`frs_redis_maxmemory_bytes{server="durable"} ${max}`);
      expect(text).toMatch(/frs_redis_used_memory_bytes\{server="durable"\} [1-9]/);
      expect(text).toMatch(/frs_redis_used_memory_bytes\{server="explain"\} [1-9]/);
    } finally {
      r.disconnect();
    }
  });

  it('unknown keys from one address are limited before authentication', async () => {
    const got: number[] = [];
    for (let i = 0; i < 60; i++) {
      const key = `frs_live_${String(i).padStart(32, 'Z')}`;
      got.push(...(await statuses([scoreCall(api.url, key, { subject: { ip_address: '1.1.1.1' } })])));
    }
    expect(got.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(got.every((s) => s === 401 || s === 429)).toBe(true);
  });
});
