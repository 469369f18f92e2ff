/**
 * The HTTP server settings every Express service of the repository shares (the API nodes and the
 * portal): one slow or idle client must not hold a connection for Node's defaults (60 s for
 * headers, 300 s for a request, checked only every 30 s).
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Config } from './config.ts';

/**
 * An idle keep-alive connection is closed after this long: above the 60 s idle timeout of common
 * load balancers, so the balancer (not the server) always closes first and never sends a request
 * down a connection the server is closing.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export type HttpTimeouts = Pick<Config, 'HTTP_REQUEST_TIMEOUT_MS' | 'HTTP_HEADERS_TIMEOUT_MS'>;

/**
 * A server that cuts a request whose headers are not complete within `HTTP_HEADERS_TIMEOUT_MS`,
 * or whose headers and body are not complete within `HTTP_REQUEST_TIMEOUT_MS` (Node answers 408
 * and closes the connection), and closes keep-alive connections idle for KEEP_ALIVE_TIMEOUT_MS.
 */
export function createTimedServer(cfg: HttpTimeouts, handler: RequestListener): Server {
  const server = createServer(
    {
      requestTimeout: cfg.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeout: Math.min(cfg.HTTP_HEADERS_TIMEOUT_MS, cfg.HTTP_REQUEST_TIMEOUT_MS),
      // Node checks those timeouts on this interval (30 s by default): a slow client is cut
      // within a second of its deadline, not up to half a minute later.
      connectionsCheckingInterval: 1_000,
    },
    handler,
  );
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return server;
}
