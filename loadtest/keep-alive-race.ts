/**
 * `node loadtest/keep-alive-race.ts`: shows the keep-alive race a pooled HTTP client runs into
 * when it keeps idle sockets longer than the server does, and that a client closing them first
 * does not. Scaled down in time: the server (a child process, with the API node's HTTP timeouts
 * but a 3 s keep-alive instead of 65 s) closes connections idle for 4 s (Node adds its 1 s
 * `keepAliveTimeoutBuffer` to the announced 3 s); the client opens 100
 * sockets in a burst, goes quiet, then its event loop stalls (busy for 400 ms, as a loaded machine
 * does to it) across the moment the server closes them, and it sends a burst again.
 *
 * - Node's Agent `{ keepAlive: true }` without `timeout` (the fault bench's pool until issue
 *   14b) ignores the server's `Keep-Alive: timeout=3` and writes onto sockets the server already
 *   closed: ECONNRESET.
 * - With `timeout` below the server's (here 2 s; the fault bench uses 60 s against 65 s) the client
 *   drops idle sockets first: no reset.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';

const SERVER_KEEP_ALIVE_MS = 3_000;
const BURST = 100;

const server = spawn(
  process.execPath,
  [
    '-e',
    `const s = require('node:http').createServer(
       { requestTimeout: 10000, headersTimeout: 5000, connectionsCheckingInterval: 1000 },
       (q, r) => { q.resume(); q.on('end', () => setTimeout(() => r.end('{}'), 5)); });
     s.keepAliveTimeout = ${SERVER_KEEP_ALIVE_MS};
     s.listen(0, '127.0.0.1', () => console.log(s.address().port));`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const [chunk] = (await once(server.stdout!, 'data')) as [Buffer];
const port = Number(chunk.toString().trim());

function burst(agent: Agent): Promise<Record<string, number>> {
  const outcomes: Record<string, number> = {};
  return new Promise((resolve) => {
    let left = BURST;
    for (let i = 0; i < BURST; i++) {
      const req = request({ host: '127.0.0.1', port, path: '/', method: 'POST', agent }, (res) => {
        res.resume();
        res.on('end', () => count(String(res.statusCode)));
      });
      req.on('error', (err: NodeJS.ErrnoException) => count(err.code ?? err.message));
      req.end('{"x":1}');
    }
    function count(what: string) {
      outcomes[what] = (outcomes[what] ?? 0) + 1;
      if (--left === 0) resolve(outcomes);
    }
  });
}

async function trial(label: string, agent: Agent): Promise<void> {
  await burst(agent);
  // Quiet until just before the server closes idle sockets (its keep-alive timeout plus Node's
  // 1 s `keepAliveTimeoutBuffer`), then a stall across that moment.
  await new Promise((r) => setTimeout(r, SERVER_KEEP_ALIVE_MS + 1_000 - 150));
  const until = performance.now() + 400;
  while (performance.now() < until);
  const second = await burst(agent);
  console.log(`${label}: second burst ${JSON.stringify(second)}`);
  agent.destroy();
}

for (let round = 1; round <= 3; round++) {
  await trial(
    `round ${round}, Agent { keepAlive } (idle sockets kept forever)`,
    new Agent({ keepAlive: true, maxSockets: 256 }),
  );
  await trial(
    `round ${round}, Agent { keepAlive, timeout: 2 s } (closes idle sockets before the server)`,
    new Agent({ keepAlive: true, maxSockets: 256, timeout: SERVER_KEEP_ALIVE_MS - 1_000 }),
  );
}
server.kill();
