import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { Redis } from 'ioredis';

/** What the feed server answers; tests change it between refreshes. */
export interface FeedReply {
  status: number;
  body: string;
  /** Wait this long before answering (a source that times out). */
  delayMs: number;
}

/** A local HTTP server standing in for a capability's upstream feed. */
export async function startFeedServer(
  initial: Partial<FeedReply>,
): Promise<{ url: string; reply: FeedReply; close: () => Promise<void> }> {
  const reply: FeedReply = { status: 200, body: '', delayMs: 0, ...initial };
  const server: Server = createServer((_req, res) => {
    const { status, body, delayMs } = reply;
    const answer = () => {
      if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    };
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${addr.port}/feed`,
    reply,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** Removes every key under a test's prefix (snapshot blobs are large; the shared Redis is not ours). */
export async function unlinkPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
}
