import { Router, type Express, type RequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../shared/logger.ts';
import { buildApp, type AppDeps } from '../app.ts';
import { API_ROUTES } from '../routes/api-routes.ts';
import { UNDOCUMENTED_ROUTES } from '../routes/health.ts';

/** The parts of Express 5's router (the `router` package) this test reads. */
interface Layer {
  slash?: boolean;
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/**
 * Every route the app answers, as `METHOD /path` (Express syntax), from its router stack.
 * `.all()` handlers (the 405 answers) are listed as `ALL /path`.
 */
function mountedRoutes(app: Express): string[] {
  const found: string[] = [];
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = ([] as string[]).concat(layer.route.path);
        for (const method of Object.keys(layer.route.methods)) {
          const name = method === '_all' ? 'ALL' : method.toUpperCase();
          for (const path of paths) found.push(`${name} ${path}`);
        }
      } else if (layer.handle.stack) {
        // Mounted under a prefix, a router's paths would need it prepended; none is today.
        if (!layer.slash) throw new Error('a router mounted under a path prefix: teach mountedRoutes');
        walk(layer.handle.stack);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
  return found;
}

/** Building the app only wires handlers; none of these runs here. */
function appForRoutes(): Express {
  const pass: RequestHandler = (_req, _res, next) => next();
  const deps = {
    log: createLogger('routes-test', 'silent'),
    auth: { middleware: () => pass },
    budget: { organisation: pass, explain: pass, track: pass },
    metrics: { middleware: pass },
  };
  return buildApp(deps as unknown as AppDeps);
}

const declared = [
  ...API_ROUTES.map(({ operation: o }) => `${o.method.toUpperCase()} ${o.path.replace(/\{(\w+)\}/g, ':$1')}`),
  ...UNDOCUMENTED_ROUTES.map((o) => `${o.method.toUpperCase()} ${o.path}`),
];

/** What is mounted and not declared, and what is declared and not mounted. */
function drift(app: Express): { undeclared: string[]; unmounted: string[] } {
  const mounted = mountedRoutes(app);
  const handled = mounted.filter((r) => !r.startsWith('ALL '));
  const paths = new Set(declared.map((r) => r.split(' ')[1]));
  return {
    // A 405 catch-all belongs to a declared path; one elsewhere would be an undocumented route.
    undeclared: [
      ...handled.filter((r) => !declared.includes(r)),
      ...mounted.filter((r) => r.startsWith('ALL ') && !paths.has(r.split(' ')[1])),
    ],
    unmounted: declared.filter((r) => !handled.includes(r)),
  };
}

describe('the OpenAPI operations and the mounted routes', () => {
  it('every mounted route declares its operation, and every declared operation is mounted', () => {
    expect(drift(appForRoutes())).toEqual({ undeclared: [], unmounted: [] });
  });

  it('a route added without its operation is caught (the check can fail)', () => {
    const app = appForRoutes();
    const extra = Router();
    extra.get('/v1/scores/:id', (_req, res) => void res.end());
    extra.all('/v1/extra', (_req, res) => void res.end());
    app.use(extra);
    expect(drift(app).undeclared).toEqual(['GET /v1/scores/:id', 'ALL /v1/extra']);
  });

  it('every operation has a distinct operationId', () => {
    const ids = API_ROUTES.map((r) => r.operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
