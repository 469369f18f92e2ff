import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import { ApiError, ERROR_CODES } from '../../../shared/contract/errors.ts';
import { errorCodes, errorStatus } from '../../../shared/contract/openapi-responses.ts';
import {
  pathParams,
  type OperationDefinition,
  type ParamDefinition,
} from '../../../shared/contract/operation.ts';
import {
  capErrors,
  idempotencyKeyErrors,
  issuesToErrors,
  validateRequest,
} from '../../../shared/contract/validation.ts';
import type { Authenticator, Principal } from '../auth.ts';
import type { CallerBudget } from './caller-budget.ts';
import { methodNotAllowed } from './errors.ts';
import { idempotencyKeyOf, validatedKey } from './idempotency-key.ts';
import { csvBodyOf, jsonBodyOf, MAX_BODY_BYTES } from './json-body.ts';

type Auth = OperationDefinition['auth'];

/** What a route's handler is given: the request, validated against the route's definition. */
export interface RouteInput<A extends Auth, B, P extends string, Q = unknown> {
  /** The caller's key and organisation; a public route has none. */
  principal: A extends 'bearer' ? Principal : undefined;
  /** The body as the schema parsed it (a text body as sent; unknown for a route without one). */
  body: B;
  params: Record<P, string>;
  /** The query as the route's query schema parsed it. */
  query: Q;
  /** The Idempotency-Key, sent once and well formed (anything else was a 422 already). */
  idempotencyKey: string | undefined;
  /** When the route's own work began, after the body was read: where `latency_ms` starts. */
  startedAt: number;
}

export type RouteHandler<A extends Auth, B, P extends string, Q = unknown> = (
  input: RouteInput<A, B, P, Q>,
  res: Response,
  req: Request,
) => void | Promise<void>;

/** One operation of the API: its contract (OperationDefinition) and the handler that serves it. */
export interface RouteDefinition<
  D,
  A extends Auth,
  B extends z.ZodType,
  P extends string,
  Q extends z.ZodObject = z.ZodObject,
> extends OperationDefinition<B> {
  auth: A;
  params?: Record<P, ParamDefinition>;
  query?: Q;
  /** The largest body the route reads (JSON or text); 64 KiB unless said. */
  maxBodyBytes?: number;
  /**
   * After authentication, the organisation's budget of refused requests (caller-budget.ts);
   * `explain` caps the lookups a second too. Bearer routes only; `organisation` unless said.
   */
  budget?: 'organisation' | 'explain';
  /** Given the app's dependencies once, when the route is mounted. */
  handler: (deps: D) => RouteHandler<A, z.output<B>, P, z.output<Q>>;
}

/** What every authenticated route uses, whatever its own dependencies. */
export interface MountDeps {
  auth: Authenticator;
  budget: CallerBudget;
}

/** A defined route, its types erased but for the dependencies it needs. */
export interface ApiRoute<D> {
  readonly operation: OperationDefinition;
  /**
   * The Express handlers of the route, in order: authentication and budget (bearer routes), the
   * JSON body reader (routes with a body), validation, the route's handler. A method, so that
   * routes needing different dependencies fit in one list (method parameters are bivariant).
   */
  handlers(deps: D): RequestHandler[];
}

/** The 404 of a path parameter its schema refuses: such a value names no resource. */
function notFoundError(op: OperationDefinition): ApiError {
  const answer = op.errors.find((name) => errorStatus(name) === 404);
  const code = answer ? errorCodes(answer)[0] : undefined;
  if (!code) throw new Error(`${op.operationId}: a route with path parameters answers 404`);
  return new ApiError(404, { code, message: ERROR_CODES[code].meaning });
}

function checkParams(op: OperationDefinition): void {
  const named = pathParams(op.path).sort();
  const declared = Object.keys(op.params ?? {}).sort();
  if (named.join() !== declared.join())
    throw new Error(`${op.operationId}: path parameters ${named.join()} but params ${declared.join()}`);
  if (named.length > 0) notFoundError(op);
}

function validParams(op: OperationDefinition, req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, param] of Object.entries(op.params ?? {})) {
    const parsed = param.schema.safeParse(req.params[name]);
    if (!parsed.success) throw notFoundError(op);
    out[name] = parsed.data;
  }
  return out;
}

/**
 * The request checks a definition implies, in order: path parameters (404), then the query, the
 * body and the Idempotency-Key header together (one 422 listing every violation of them). A text
 * body is handed on as read: its handler checks it.
 */
function validInput(op: OperationDefinition, req: Request) {
  const params = validParams(op, req);
  const header = op.idempotencyKey === undefined ? undefined : idempotencyKeyOf(req);
  const query = op.query?.safeParse(req.query);
  const errors = query && !query.success ? issuesToErrors(query.error.issues) : [];
  let body: unknown = op.textBody ? req.body : undefined;
  if (op.body) {
    const validated = validateRequest(op.body.schema, req.body, header);
    if (validated.ok) body = validated.request;
    else errors.push(...validated.errors);
  } else errors.push(...idempotencyKeyErrors(header));
  if (errors.length > 0) throw new ApiError(422, capErrors(errors));
  return { params, query: query?.data, body, idempotencyKey: validatedKey(header) };
}

/** The reader of the route's body, if it takes one. */
function bodyReaders(op: OperationDefinition, maxBytes: number): RequestHandler[] {
  if (op.body) return [jsonBodyOf(maxBytes)];
  if (op.textBody) return [csvBodyOf(maxBytes)];
  return [];
}

/**
 * Defines a route: the one object from which the OpenAPI operation (shared/contract/operation.ts),
 * the Express route and its request validation are all derived. Register it with one line in
 * services/api/routes/api-routes.ts. A definition whose path and params disagree throws here.
 */
export function defineRoute<
  D,
  A extends Auth,
  B extends z.ZodType = z.ZodType,
  P extends string = never,
  Q extends z.ZodObject = z.ZodObject,
>(definition: RouteDefinition<D, A, B, P, Q>): ApiRoute<A extends 'bearer' ? D & MountDeps : D> {
  const { handler, budget = 'organisation', maxBodyBytes = MAX_BODY_BYTES, ...operation } = definition;
  checkParams(operation);
  return {
    operation,
    handlers(deps) {
      const serve = handler(deps as D) as RouteHandler<Auth, unknown, string, unknown>;
      // Typed by `auth`: a bearer route's deps include MountDeps (see the return type).
      const mount = deps as MountDeps;
      const run: RequestHandler = async (req, res) => {
        const startedAt = performance.now();
        const principal = res.locals.principal as Principal | undefined;
        await serve({ ...validInput(operation, req), principal, startedAt }, res, req);
      };
      return [
        ...(operation.auth === 'bearer' ? [mount.auth.middleware(), mount.budget[budget]] : []),
        ...bodyReaders(operation, maxBodyBytes),
        run,
      ];
    },
  };
}

/**
 * What a list of routes needs, together: the intersection of their dependencies. Each is taken as
 * a function parameter first, because a union of the dependencies themselves would collapse to
 * `unknown` as soon as one route needs none.
 */
export type RoutesDeps<R extends readonly ApiRoute<never>[]> = (
  R[number] extends infer E ? (E extends ApiRoute<infer D> ? (deps: D) => void : never) : never
) extends (deps: infer I) => void
  ? I
  : never;

/**
 * Mounts the routes in the order given. After all of them, each path answers the methods it does
 * not take with 405 and an `Allow` naming those it does (every route of the path, not only one).
 */
export function mountRoutes<R extends readonly ApiRoute<never>[]>(routes: R, deps: RoutesDeps<R>): Router {
  const router = Router();
  const allowed = new Map<string, string[]>();
  for (const route of routes as readonly ApiRoute<RoutesDeps<R>>[]) {
    const { method, path } = route.operation;
    const expressPath = path.replace(/\{(\w+)\}/g, ':$1');
    router[method](expressPath, ...route.handlers(deps));
    allowed.set(expressPath, [...(allowed.get(expressPath) ?? []), method.toUpperCase()]);
  }
  for (const [path, methods] of allowed) router.all(path, methodNotAllowed(methods));
  return router;
}
