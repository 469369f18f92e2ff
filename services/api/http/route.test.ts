import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { renderOpenApiYaml } from '../../../shared/contract/openapi.ts';
import { json } from '../../../shared/contract/operation.ts';
import { JSON_BODY_REFUSALS } from '../../../shared/contract/openapi-responses.ts';
import type { Authenticator } from '../auth.ts';
import { errorHandler } from './errors.ts';
import type { CallerBudget } from './caller-budget.ts';
import { API_ROUTES } from '../routes/api-routes.ts';
import { createLogger } from '../../../shared/logger.ts';
import { defineRoute, mountRoutes } from './route.ts';

// A route as a new feature would add it: a list of blocked subjects, read and replaced by id.
const ListId = z.string().regex(/^ls_[0-9a-f]{8}$/);
const TestList = z
  .object({ list_id: ListId, entries: z.array(z.string().min(1)).max(3) })
  .strict()
  .meta({ id: 'RouteTestList', description: 'A list of blocked subjects.' });

const lists = new Map<string, string[]>([['ls_0123abcd', ['+447911123456']]]);
type ListDeps = { lists: Map<string, string[]> };
const params = { list_id: { schema: ListId, example: 'ls_0123abcd' } };

const getList = defineRoute({
  method: 'get',
  path: '/v1/lists/{list_id}',
  operationId: 'getList',
  tags: ['scoring'],
  summary: 'Read a list',
  auth: 'bearer',
  params,
  responses: {
    200: {
      description: 'The list.',
      body: json(TestList, { one: { value: { list_id: 'ls_0123abcd', entries: [] } } }),
    },
  },
  errors: ['Unauthenticated', 'NotFound', 'RateLimited'],
  handler:
    (deps: ListDeps) =>
    ({ params: { list_id } }, res) => {
      res.json({ list_id, entries: deps.lists.get(list_id) ?? [] });
    },
});

const putList = defineRoute({
  method: 'post',
  path: '/v1/lists/{list_id}',
  operationId: 'replaceList',
  tags: ['scoring'],
  summary: 'Replace a list',
  auth: 'bearer',
  params,
  idempotencyKey: 'Replays the first answer.',
  body: { schema: TestList },
  responses: { 200: { description: 'Replaced.', body: json(TestList) } },
  errors: [...JSON_BODY_REFUSALS, 'NotFound'],
  handler:
    (deps: ListDeps) =>
    ({ params: { list_id }, body, principal }, res) => {
      deps.lists.set(list_id, body.entries);
      res.json({ ...body, replaced_by: principal.org.org_id });
    },
});

/** The served document, with the routes given registered after the API's own. */
const documentWith = (...extra: { operation: (typeof API_ROUTES)[number]['operation'] }[]) =>
  parse(renderOpenApiYaml([...API_ROUTES, ...extra].map((r) => r.operation))) as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
    components: { schemas: Record<string, unknown> };
  };

describe('a route defined once', () => {
  it('adds its operation and its schemas to the OpenAPI document, and changes nothing else', () => {
    const before = documentWith();
    const after = documentWith(getList, putList);
    expect(before.paths['/v1/lists/{list_id}']).toBeUndefined();
    const item = after.paths['/v1/lists/{list_id}']!;
    expect(Object.keys(item)).toEqual(['get', 'post']);
    expect(item.get).toMatchObject({
      operationId: 'getList',
      parameters: [
        {
          name: 'list_id',
          in: 'path',
          required: true,
          schema: { type: 'string', pattern: '^ls_[0-9a-f]{8}$' },
        },
      ],
      responses: {
        '200': {
          content: { 'application/json': { schema: { $ref: '#/components/schemas/RouteTestList' } } },
        },
        '401': { $ref: '#/components/responses/Unauthenticated' },
        '404': { $ref: '#/components/responses/NotFound' },
      },
    });
    // Bearer: the document's security applies, so the operation names none of its own.
    expect(item.get).not.toHaveProperty('security');
    expect(item.post!.requestBody).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/RouteTestList' } } },
    });
    expect(Object.keys(item.post!.responses as object)).toEqual([
      '200',
      '400',
      '401',
      '404',
      '409',
      '413',
      '415',
      '422',
      '429',
      '500',
    ]);
    expect(after.components.schemas.RouteTestList).toMatchObject({
      type: 'object',
      required: ['list_id', 'entries'],
    });
    expect(before.components.schemas.RouteTestList).toBeUndefined();
    // Everything the document said before, it still says.
    const { '/v1/lists/{list_id}': _added, ...paths } = after.paths;
    const { RouteTestList: _schema, ...schemas } = after.components.schemas;
    expect({ ...after, paths, components: { ...after.components, schemas } }).toEqual(before);
  });

  it('refuses a definition whose path parameters and params disagree', () => {
    expect(() =>
      defineRoute({ ...getList.operation, path: '/v1/lists/{id}', params, handler: () => () => {} }),
    ).toThrow(/path parameters id but params list_id/);
  });
});

describe('the Express route of a definition', () => {
  async function served(call: (url: string) => Promise<void>) {
    const authenticated: string[] = [];
    const pass: RequestHandler = (_req, _res, next) => next();
    const deps = {
      lists,
      auth: {
        middleware: (): RequestHandler => (req, res, next) => {
          authenticated.push(`${req.method} ${req.path}`);
          res.locals.principal = { org: { org_id: 'org_test' }, keyId: 'k' };
          next();
        },
      } as unknown as Authenticator,
      budget: { organisation: pass, explain: pass } as unknown as CallerBudget,
    };
    const app = express()
      .use(mountRoutes([getList, putList], deps))
      .use(errorHandler(createLogger('route-test', 'silent')));
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      await call(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/lists`);
    } finally {
      server.close();
    }
    return authenticated;
  }
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const codes = async (res: Response) =>
    ((await res.json()) as { errors: { code: string; field?: string }[] }).errors.map((e) => [
      e.code,
      e.field,
    ]);

  it('authenticates, validates params, body and Idempotency-Key, and answers 405 naming every method', async () => {
    const authenticated = await served(async (url) => {
      expect(await (await fetch(`${url}/ls_0123abcd`)).json()).toEqual({
        list_id: 'ls_0123abcd',
        entries: ['+447911123456'],
      });
      // A value the parameter's schema refuses names no list: the route's 404, before any lookup.
      const missing = await fetch(`${url}/not-a-list`);
      expect(missing.status).toBe(404);
      expect(await codes(missing)).toEqual([['E_NOT_FOUND', undefined]]);

      const invalid = await post(
        `${url}/ls_0123abcd`,
        { list_id: 'ls_0123abcd', entries: [''], extra: 1 },
        {
          'idempotency-key': 'k'.repeat(129),
        },
      );
      expect(invalid.status).toBe(422);
      expect(await codes(invalid)).toEqual([
        ['E_VALIDATION', 'entries.0'],
        ['E_UNKNOWN_FIELD', 'extra'],
        ['E_INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key'],
      ]);
      const replaced = await post(`${url}/ls_0123abcd`, {
        list_id: 'ls_0123abcd',
        entries: ['+15551234567'],
      });
      expect(await replaced.json()).toMatchObject({ entries: ['+15551234567'], replaced_by: 'org_test' });

      const other = await fetch(`${url}/ls_0123abcd`, { method: 'DELETE' });
      expect(other.status).toBe(405);
      expect(other.headers.get('allow')).toBe('GET, POST');
    });
    expect(authenticated).toEqual([
      'GET /v1/lists/ls_0123abcd',
      'GET /v1/lists/not-a-list',
      'POST /v1/lists/ls_0123abcd',
      'POST /v1/lists/ls_0123abcd',
    ]);
  });
});
