import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startApi, waitFor } from '../../infra/harness/processes.ts';

/** Writes raw bytes on a fresh connection; resolves with what the node sent before closing it. */
async function raw(port: number, bytes: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let got = '';
  socket.setEncoding('utf8').on('data', (d: string) => (got += d));
  socket.on('error', () => undefined);
  socket.write(bytes);
  await once(socket, 'close');
  return got;
}

const clientErrorLines = (output: string) =>
  output.split('\n').filter((l) => l.includes('"http client error"'));

describe('connections the HTTP parser gives up on', () => {
  it('answers as Node does (400, 408), logs each with its code, never the request, and rate-limits the log', async () => {
    const api = await startApi({ HTTP_HEADERS_TIMEOUT_MS: '1000', LOG_LEVEL: 'warn' });
    try {
      // Not HTTP at all, carrying what must never reach a log: a key and a phone number.
      const secret = 'frs_live_clienterrortestkey000000';
      const bad = await raw(
        api.port,
        `BR3W /v1/score HTTP/1.1\r\nAuthorization: Bearer ${secret}\r\nX-Phone: +447911123456\r\n\r\n`,
      );
      expect(bad).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      await waitFor('client error logged', async () => clientErrorLines(api.output()).length >= 1, 10_000);
      const [line] = clientErrorLines(api.output());
      const entry = JSON.parse(line!) as Record<string, unknown>;
      expect(entry.code).toMatch(/^HPE_/);
      expect(entry.socketAgeMs).toEqual(expect.any(Number));
      expect(entry.requestsOnSocket).toBe(0);
      expect(api.output()).not.toContain(secret);
      expect(api.output()).not.toContain('447911123456');

      // Headers never finished: cut by headersTimeout (1 s here) with a 408, and logged as such.
      const slow = await raw(api.port, 'POST /v1/score HTTP/1.1\r\nHost: x\r\n');
      expect(slow).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      await waitFor(
        'timeout logged',
        async () => clientErrorLines(api.output()).some((l) => l.includes('ERR_HTTP_REQUEST_TIMEOUT')),
        10_000,
      );

      // A flood of garbage is answered every time but logged at most 10 times per 10 s window (a
      // flood of a second or so touches two windows at most).
      const before = clientErrorLines(api.output()).length;
      const answers = await Promise.all(Array.from({ length: 60 }, () => raw(api.port, 'NOT HTTP\r\n\r\n')));
      expect(answers.every((a) => a.startsWith('HTTP/1.1 400 '))).toBe(true);
      // Every line the flood caused is in the output once the node has exited and its pipes closed.
      expect(await api.stop('SIGTERM')).toBe(0);
      await waitFor(
        "the node's output to end",
        async () => api.proc.stdout!.readableEnded && api.proc.stderr!.readableEnded,
        10_000,
        20,
      );
      expect(clientErrorLines(api.output()).length - before).toBeLessThanOrEqual(20);
    } finally {
      await api.stop('SIGKILL');
    }
  });
});
