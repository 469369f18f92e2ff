/** The baselines' process model: WORKERS (default 2) processes sharing one port, like the 2 API nodes. */
import cluster from 'node:cluster';

/** In the primary: forks the workers; SIGTERM to the primary ends them all. */
export function forkWorkers(): void {
  const workers = Number(process.env.WORKERS ?? 2);
  for (let i = 0; i < workers; i++) cluster.fork();
  process.on('SIGTERM', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.kill();
    process.exit(0);
  });
}
