/** Baseline (a): a bare node:http server answering a small JSON body, N worker processes on one port. */
import cluster from 'node:cluster';
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 9301);
const workers = Number(process.env.WORKERS ?? 2);

if (cluster.isPrimary) {
  for (let i = 0; i < workers; i++) cluster.fork();
  process.on('SIGTERM', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.kill();
    process.exit(0);
  });
} else {
  const body = JSON.stringify({ ok: true });
  createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }).listen(port, '127.0.0.1');
}
