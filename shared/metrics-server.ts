/**
 * The small HTTP server of a background service (audit sink, refresher): Prometheus text at
 * /metrics, /livez (the process answers) and /readyz (it is doing its work). The API serves the
 * same paths from its own Express app.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, register as defaultRegistry, type Registry } from 'prom-client';
import type { Logger } from './logger.ts';

/**
 * How often the event-loop lag histogram samples, in ms. prom-client's default of 10 ms wakes the
 * process 100 times a second: 6-7 ms of CPU a second per process on this VM class, idle or not,
 * which at 50 scores a second was about 300 µs of every score across the system's processes. At
 * 100 ms a stall of 100 ms or more is always seen and a shorter one in proportion to its length.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/** The process metrics every service exports (CPU, memory, event-loop lag, GC, handles), on `registry`. */
export function processMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
}

export interface MetricsServerOptions {
  port: number;
  host: string;
  /** Defaults to prom-client's default registry, where the services' own modules register. */
  registry?: Registry;
  /** Whether /readyz answers 200; `reason` explains a 503. */
  ready: () => { ready: boolean; reason?: string };
  log: Logger;
}

const PATHS = new Set(['/metrics', '/livez', '/readyz']);

export async function startMetricsServer(opts: MetricsServerOptions): Promise<Server> {
  const registry = opts.registry ?? defaultRegistry;
  // Process metrics (CPU, memory, event-loop lag, GC) like the API's; registered once per registry.
  if (!registry.getSingleMetric('process_cpu_user_seconds_total')) processMetrics(registry);
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (!PATHS.has(path)) return json(404, { error: 'not found' });
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return json(405, { error: 'method not allowed' });
    }
    if (path === '/livez') return json(200, { status: 'ok' });
    if (path === '/readyz') {
      const r = opts.ready();
      return json(
        r.ready ? 200 : 503,
        r.ready ? { status: 'ready' } : { status: 'not_ready', reason: r.reason },
      );
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => {
        opts.log.warn({ err }, 'metrics collection failed');
        json(500, { error: 'metrics collection failed' });
      },
    );
  });
  // A scraper that holds a connection open must not delay shutdown.
  server.keepAliveTimeout = 5_000;
  server.listen(opts.port, opts.host);
  await once(server, 'listening');
  const address = server.address();
  opts.log.info(
    { port: typeof address === 'object' ? address?.port : opts.port },
    'metrics and health listening',
  );
  return server;
}

/** Stops accepting and drops idle scrape connections. */
export async function stopMetricsServer(server: Server): Promise<void> {
  const closed = once(server, 'close');
  server.close();
  server.closeIdleConnections();
  await closed;
}

/** Rejects after `ms`: a scrape-time read must answer before the scraper gives up (10 s by default). */
export function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
