/**
 * Requests refused before a route sees them, or refused because a header came twice: every one is
 * answered in the contract's Error shape, with X-Request-Id, as every other error is.
 */
import { once } from 'node:events';
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../shared/contract/errors.ts';
import { orgWithKey } from '../../infra/harness/fixtures.ts';
import { startApi, type ApiNode } from '../../infra/harness/processes.ts';

/** Writes raw bytes on a fresh connection; what the node sent before closing it, split up. */
async function raw(port: number, bytes: string) {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let got = '';
  socket.setEncoding('utf8').on('data', (d: string) => (got += d));
  socket.on('error', () => undefined);
  socket.write(bytes);
  await once(socket, 'close');
  const [head, body] = [got.slice(0, got.indexOf('\r\n\r\n')), got.slice(got.indexOf('\r\n\r\n') + 4)];
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine!.split(' ')[1]), headers, body };
}

/** A request with the same header sent twice, as node:http writes an array value. */
function twice(url: string, path: string, apiKey: string, body: unknown) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': ['a1', 'b2'],
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('refusals carry the Error shape', () => {
  let api: ApiNode;
  beforeAll(async () => {
    api = await startApi({ LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    await api?.stop();
  });

  const body = '{"subject":{"phone_number":"+447911123456"}}';
  it.each([
    [
      'a 20 KB Authorization header',
      `POST /v1/score HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'k'.repeat(20_000)}\r\n\r\n`,
      431,
      'E_HEADERS_TOO_LARGE',
    ],
    [
      'a 20 KB URL',
      `GET /v1/explain/${'s'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      431,
      'E_HEADERS_TOO_LARGE',
    ],
    [
      'two different Content-Length headers',
      `POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nContent-Length: 3\r\n\r\n${body}`,
      400,
      'E_BAD_REQUEST',
    ],
    [
      'Content-Length with Transfer-Encoding',
      `POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body}`,
      400,
      'E_BAD_REQUEST',
    ],
  ])('%s: the parser refusal has an Error body', async (_what, bytes, status, code) => {
    const res = await raw(api.port, bytes);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(res.body));
    expect(ErrorBody.parse(JSON.parse(res.body)).errors[0]!.code).toBe(code);
  });

  it.each([
    ['/v1/score', { subject: { phone_number: '+447911123456' } }],
    ['/v1/outcomes', { subject: { phone_number: '+447911123456' }, outcome: 'not_fraud' }],
  ])(
    'two Idempotency-Key headers on %s are a 422 on that field, not one joined key',
    async (path, payload) => {
      const { apiKey } = await orgWithKey('bureau', { rateRps: 100 });
      const res = await twice(api.url, path, apiKey, payload);
      expect(res.status).toBe(422);
      expect(ErrorBody.parse(JSON.parse(res.body)).errors).toEqual([
        {
          code: 'E_INVALID_IDEMPOTENCY_KEY',
          message: 'Idempotency-Key was sent 2 times; send it once',
          field: 'Idempotency-Key',
        },
      ]);
    },
  );
});
