import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from './logger.ts';

/** At most this many client-error lines per window; the rest are counted in the next line. */
const LOG_BURST = 10;
const LOG_WINDOW_MS = 10_000;

/** Node's own answers to a request it could not parse or that outlived its timeouts. */
const RESPONSES: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\n\r\n',
  ERR_HTTP_REQUEST_TIMEOUT: 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n',
};
const BAD_REQUEST = 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n';

/**
 * Logs the connections Node's HTTP parser gives up on (`clientError`: a malformed request, a
 * request or its headers outliving `requestTimeout`/`headersTimeout`, a peer resetting the
 * connection), which otherwise leave no trace: a caller that sees a reset or a 408 can then be
 * matched with the reason on the server. Rate-limited, and never the request's content (it may
 * hold keys or phone numbers): only the error code, the socket's age and requests served on it.
 *
 * Listening to `clientError` replaces Node's default handler, so this answers as Node does: the
 * same status line when nothing of a response was sent yet, then the socket is destroyed.
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
    if (socket.writable && !message?.headersSent) socket.write(RESPONSES[code] ?? BAD_REQUEST);
    socket.destroy(err);
  });
}
