import type { Server } from 'node:http';

/** How often idle keep-alive connections are swept while draining. */
const SWEEP_MS = 50;

/**
 * Stops accepting connections and resolves once every request already received is answered.
 *
 * `server.close()` alone is not enough: it closes the connections idle at that instant, but a
 * keep-alive connection busy at that instant stays open, and a client that keeps reusing it
 * (a load balancer, undici's pool) keeps the server open for as long as it sends. So from now on
 * every response says `Connection: close`, and connections idle between two requests are swept.
 * A request still unanswered after `graceMs` has its connection cut.
 */
export async function drainHttpServer(server: Server, graceMs: number): Promise<void> {
  server.prependListener('request', (_req, res) => res.setHeader('Connection', 'close'));
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_MS);
  const cut = setTimeout(() => server.closeAllConnections(), graceMs);
  try {
    await closed;
  } finally {
    clearInterval(sweep);
    clearTimeout(cut);
  }
}
