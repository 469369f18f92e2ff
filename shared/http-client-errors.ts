import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorCode } from './contract/errors.ts';
import type { Logger } from './logger.ts';

/** At most this many client-error lines per window; the rest are counted in the next line. */
const LOG_BURST = 10;
const LOG_WINDOW_MS = 10_000;

type Refusal = { status: number; reason: string; code: ErrorCode; message: string };

/**
 * The answers to a request Node's parser could not read or that outlived its timeouts: Node's
 * own status lines, with the contract's Error body (every error answer has it) instead of none.
 */
const REFUSALS: Record<string, Refusal> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    code: 'E_HEADERS_TOO_LARGE',
    message: 'the request line and headers are larger than the server reads (16 KiB)',
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    status: 413,
    reason: 'Payload Too Large',
    code: 'E_PAYLOAD_TOO_LARGE',
    message: 'the chunk extensions of the body are too large',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: 'Request Timeout',
    code: 'E_REQUEST_TIMEOUT',
    message: 'the request was not received completely in time',
  },
  HPE_UNEXPECTED_CONTENT_LENGTH: {
    status: 400,
    reason: 'Bad Request',
    code: 'E_BAD_REQUEST',
    message: 'more than one different Content-Length, or Content-Length with Transfer-Encoding',
  },
  HPE_INVALID_TRANSFER_ENCODING: {
    status: 400,
    reason: 'Bad Request',
    code: 'E_BAD_REQUEST',
    message: 'Transfer-Encoding sent with Content-Length, or not ending in chunked',
  },
  HPE_INVALID_CONTENT_LENGTH: {
    status: 400,
    reason: 'Bad Request',
    code: 'E_BAD_REQUEST',
    message: 'the Content-Length header is not one whole number',
  },
};
const BAD_REQUEST: Refusal = {
  status: 400,
  reason: 'Bad Request',
  code: 'E_BAD_REQUEST',
  message: 'the request is not valid HTTP/1.1',
};

/** A complete response that closes the connection: status line, Error body and its headers. */
function refusal(code: string): string {
  const r = REFUSALS[code] ?? BAD_REQUEST;
  const body = JSON.stringify({ errors: [{ code: r.code, message: `${r.message} (${code})` }] });
  return (
    `HTTP/1.1 ${r.status} ${r.reason}\r\n` +
    'Content-Type: application/json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${randomUUID()}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/**
 * Logs the connections Node's HTTP parser gives up on (`clientError`: a malformed request, a
 * request or its headers outliving `requestTimeout`/`headersTimeout`, a peer resetting the
 * connection), which otherwise leave no trace: a caller that sees a reset or a 408 can then be
 * matched with the reason on the server. Rate-limited, and never the request's content (it may
 * hold keys or phone numbers): only the error code, the socket's age and requests served on it.
 *
 * Listening to `clientError` replaces Node's default handler, so this answers as Node does (the
 * same status line when nothing of a response was sent yet, then the socket is destroyed), with
 * the Error body the contract promises. No answer at all when the socket is no longer writable
 * (the peer reset it) or a response on it has begun: a second status line would corrupt it.
 */
export function logClientErrors(server: Server, log: Logger): void {
  const born = new WeakMap<Socket, number>();
  const served = new WeakMap<Socket, number>();
  server.on('connection', (socket: Socket) => born.set(socket, Date.now()));
  server.on('request', (req) => served.set(req.socket, (served.get(req.socket) ?? 0) + 1));

  let windowStart = 0;
  let inWindow = 0;
  let suppressed = 0;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const code = err.code ?? 'UNKNOWN';
    const now = Date.now();
    if (now - windowStart >= LOG_WINDOW_MS) {
      windowStart = now;
      inWindow = 0;
    }
    if (inWindow++ < LOG_BURST) {
      log.warn(
        {
          code,
          socketAgeMs: now - (born.get(socket) ?? now),
          requestsOnSocket: served.get(socket) ?? 0,
          ...(suppressed ? { suppressedBefore: suppressed } : {}),
        },
        'http client error',
      );
      suppressed = 0;
    } else suppressed++;

    const message = (socket as Socket & { _httpMessage?: { headersSent: boolean } })._httpMessage;
    if (socket.writable && !message?.headersSent) socket.write(refusal(code));
    socket.destroy(err);
  });
}
