/** Baseline (b): an Express hello-world on the same Node, N worker processes on one port. */
import cluster from 'node:cluster';
import express from 'express';
import { forkWorkers } from './workers.ts';

const port = Number(process.env.PORT ?? 9302);

if (cluster.isPrimary) {
  forkWorkers();
} else {
  const app = express();
  app.get('/', (_req, res) => {
    res.json({ ok: true });
  });
  app.listen(port, '127.0.0.1');
}
