/** Baseline (b): an Express hello-world on the same Node, N worker processes on one port. */
import cluster from 'node:cluster';
import express from 'express';

const port = Number(process.env.PORT ?? 9302);
const workers = Number(process.env.WORKERS ?? 2);

if (cluster.isPrimary) {
  for (let i = 0; i < workers; i++) cluster.fork();
  process.on('SIGTERM', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.kill();
    process.exit(0);
  });
} else {
  const app = express();
  app.get('/', (_req, res) => {
    res.json({ ok: true });
  });
  app.listen(port, '127.0.0.1');
}
