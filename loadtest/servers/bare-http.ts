/** Baseline (a): a bare node:http server answering a small JSON body, N worker processes on one port. */
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { forkWorkers } from './workers.ts';

const port = Number(process.env.PORT ?? 9301);

if (cluster.isPrimary) {
  forkWorkers();
} else {
  const body = JSON.stringify({ ok: true });
  createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }).listen(port, '127.0.0.1');
}
