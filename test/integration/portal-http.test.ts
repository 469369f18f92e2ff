import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPortal, type PortalNode } from '../helpers/portal.ts';

/**
 * Resolves with what the server sent and when it closed, measured from `start`. A reset counts as
 * closed (a client still writing after the server closed gets one): `events.once` would reject on
 * it. `answered()` tells a trickling writer to stop once the server has spoken, so its next write
 * does not draw that reset before the answer is read.
 */
function closedAfter(socket: ReturnType<typeof connect>, start: number) {
  let got = '';
  socket.setEncoding('utf8').on('data', (d: string) => (got += d));
  socket.on('error', () => undefined);
  const closed = new Promise<{ got: string; afterMs: number }>((resolve) =>
    socket.once('close', () => resolve({ got, afterMs: Date.now() - start })),
  );
  return Object.assign(closed, { answered: () => got.length > 0 });
}

describe('the portal HTTP server', () => {
  let portal: PortalNode;
  let port: number;

  beforeAll(async () => {
    portal = await startPortal({
      HTTP_HEADERS_TIMEOUT_MS: '1000',
      HTTP_REQUEST_TIMEOUT_MS: '2000',
    });
    port = Number(new URL(portal.url).port);
  });

  afterAll(async () => {
    await portal?.stop();
  });

  it('cuts a client that trickles its request headers within the header timeout', async () => {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const start = Date.now();
    const closed = closedAfter(socket, start);
    // One header line every 300 ms: the connection is never idle, but the headers never end.
    const lines = [
      'GET /signin HTTP/1.1\r\n',
      'Host: portal\r\n',
      ...Array.from({ length: 30 }, (_, i) => `X-Slow-${i}: y\r\n`),
    ];
    const trickle = setInterval(() => {
      if (!socket.destroyed && !closed.answered()) socket.write(lines.shift() ?? 'X-More: y\r\n');
    }, 300);
    try {
      const { got, afterMs } = await closed;
      expect(got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      // 1 s of header timeout, checked every second.
      expect(afterMs).toBeLessThan(3_000);
      console.log(`[portal] trickled headers cut after ${afterMs} ms`);
    } finally {
      clearInterval(trickle);
    }
  });

  it('cuts a connection that never sends a request within the request timeout', async () => {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const { got, afterMs } = await closedAfter(socket, Date.now());
    expect(got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(afterMs).toBeLessThan(4_000);
  });

  it('cuts a request whose body is not complete within the request timeout', async () => {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const start = Date.now();
    const closed = closedAfter(socket, start);
    socket.write(
      'POST /signin HTTP/1.1\r\nHost: portal\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nemail=',
    );
    const trickle = setInterval(() => !socket.destroyed && !closed.answered() && socket.write('a'), 300);
    try {
      const { got, afterMs } = await closed;
      expect(got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(afterMs).toBeLessThan(4_000);
    } finally {
      clearInterval(trickle);
    }
  });
});
