import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../shared/contract/errors.ts';
import { componentSchemas } from '../../shared/contract/operation.ts';
import { COMPONENT_KEYS, REASON_CODES } from '../../shared/scoring/reason-codes.ts';
import { BENIGN_EXCLUSIONS } from '../../shared/vocabulary/benign-exclusions.ts';
import { documentValidator, servedDocument, startHarness, type Harness, type OpenApiDoc } from './harness.ts';
import { API_ROUTES } from '../../services/api/routes/api-routes.ts';

/** docs/contract.md "Endpoints", "Validation and errors", "Limits and billing" and "Versioning", as served. */
describe('GET /v1/openapi.yaml', () => {
  let h: Harness;
  let doc: OpenApiDoc;
  beforeAll(async () => {
    h = await startHarness();
    doc = await servedDocument(h.api.url);
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('is public OpenAPI 3.1 YAML with its own semver', async () => {
    const res = await fetch(`${h.api.url}/v1/openapi.yaml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect((await fetch(`${h.api.url}/v1/openapi.yaml`, { method: 'POST' })).status).toBe(405);
  });

  it('answers 405 with Allow, not 404, to a method a public route does not take', async () => {
    // node:http, not fetch: fetch refuses to send TRACE.
    const call = (method: string, path: string) =>
      new Promise<{ status: number; allow: string | undefined; body: string }>((resolve, reject) => {
        const req = request(`${h.api.url}${path}`, { method }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body }));
        });
        req.on('error', reject).end();
      });
    for (const path of ['/v1/health', '/livez', '/readyz', '/v1/openapi.yaml']) {
      for (const method of ['TRACE', 'POST', 'DELETE']) {
        const res = await call(method, path);
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.allow).toBe('GET');
        expect((JSON.parse(res.body) as { errors: { code: string }[] }).errors[0]!.code).toBe(
          'E_METHOD_NOT_ALLOWED',
        );
      }
    }
  });

  it('lists every score version in the shadow_version enum, so a document-valid value is never unknown', async () => {
    const options = doc.components.schemas.ScoreOptions as {
      properties: { shadow_version: { enum: string[] } };
    };
    const health = (await (await fetch(`${h.api.url}/v1/health`)).json()) as {
      score_versions: { id: string; status: string }[];
    };
    expect(options.properties.shadow_version.enum).toEqual(health.score_versions.map((v) => v.id));
    for (const v of health.score_versions) {
      const res = await h.callers.bureau.score({
        subject: { phone_number: '+447911123456' },
        options: { shadow_version: v.id },
      });
      expect(res.status, v.id).toBe(v.status === 'retired' ? 409 : 200);
    }
  });

  it('serves exactly the schemas generated from the zod schemas that validate requests', () => {
    expect(doc.components.schemas).toEqual(componentSchemas(API_ROUTES.map((r) => r.operation)));
  });

  it('documents every endpoint, with bearer security on the private ones only', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/livez',
        '/readyz',
        '/v1/explain/{score_id}',
        '/v1/health',
        '/v1/lists',
        '/v1/lists.csv',
        '/v1/lists/entries',
        '/v1/lists/entries/remove',
        '/v1/openapi.yaml',
        '/v1/outcomes',
        '/v1/score',
      ].sort(),
    );
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/v1/score']!.post!.security).toBeUndefined();
    expect(doc.paths['/v1/explain/{score_id}']!.get!.security).toBeUndefined();
    expect(doc.paths['/v1/outcomes']!.post!.security).toBeUndefined();
    for (const [path, method] of [
      ['/v1/lists', 'get'],
      ['/v1/lists', 'put'],
      ['/v1/lists.csv', 'get'],
      ['/v1/lists/entries', 'post'],
      ['/v1/lists/entries/remove', 'post'],
    ] as const)
      expect(doc.paths[path]![method]!.security).toBeUndefined();
    for (const p of ['/v1/health', '/livez', '/readyz', '/v1/openapi.yaml']) {
      expect(doc.paths[p]!.get!.security).toEqual([]);
    }
  });

  it('documents every status and header of scoring, and the Idempotency-Key limit', () => {
    const op = doc.paths['/v1/score']!.post!;
    expect(Object.keys(op.responses).sort()).toEqual(
      ['200', '400', '401', '402', '403', '409', '413', '415', '422', '429', '500'].sort(),
    );
    expect(Object.keys(op.responses['200']!.headers!).sort()).toEqual(
      [
        'Idempotency-Status',
        'Idempotent-Replayed',
        'X-Credits-Remaining',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-Request-Id',
      ].sort(),
    );
    const rateLimited = doc.components.responses.RateLimited!;
    expect(Object.keys(rateLimited.headers!).sort()).toEqual(
      [
        'Retry-After',
        'X-Credits-Remaining',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-Request-Id',
      ].sort(),
    );
    expect(Object.keys(doc.components.responses.Unauthenticated!.headers!)).toContain('WWW-Authenticate');
    expect(Object.keys(doc.components.responses.Conflict!.headers!)).toContain('Retry-After');
    expect(doc.components.responses.MethodNotAllowed).toBeDefined();
    expect(op.parameters).toEqual([
      expect.objectContaining({
        name: 'Idempotency-Key',
        in: 'header',
        schema: expect.objectContaining({ maxLength: 128 }),
      }),
    ]);
    expect(Object.keys(doc.paths['/v1/explain/{score_id}']!.get!.responses)).toEqual(
      expect.arrayContaining(['200', '401', '404', '503']),
    );
  });

  it('publishes the registries of component keys, reason codes, benign exclusions and error codes', () => {
    expect(doc['x-component-keys']).toEqual(COMPONENT_KEYS);
    expect(doc['x-reason-codes']).toEqual(REASON_CODES);
    expect(doc['x-benign-exclusions']).toEqual(BENIGN_EXCLUSIONS);
    expect(doc['x-error-codes']).toEqual(ERROR_CODES);
    expect(doc['x-reason-codes']).toHaveProperty('CLI_IMPOSSIBLE');
    expect(doc['x-reason-codes']).toHaveProperty('NDC_RANGE_ELEVATED');
    expect(doc['x-error-codes']).toMatchObject({
      E_CREDITS_EXHAUSTED: { status: 402 },
      E_RATE_LIMITED: { status: 429 },
      E_ENTITLEMENT_REQUIRED: { status: 403 },
      E_SCORE_VERSION_RETIRED: { status: 409 },
    });
  });

  it('responses of every tier, options and errors validate against the served component schemas', async () => {
    const scoreResponse = documentValidator(doc, 'ScoreResponse');
    const errorBody = documentValidator(doc, 'Error');
    const bodies = [
      { subject: { phone_number: '+447911123456', ip_address: '81.2.69.142' }, client_reference: 'r' },
      { subject: { phone_number: '+444012345678' } },
      { subject: { ip_address: '192.0.2.1' }, options: { explain: false } },
      {
        subject: { phone_number: '+4915712345678' },
        context: {
          sector: 'bank',
          geography: { operating_countries: ['GB'] },
          collection_point: { moment: 'payment' },
        },
      },
    ];
    for (const tier of ['verify', 'assess', 'bureau'] as const) {
      for (const body of bodies) {
        const res = await h.callers[tier].score(body);
        expect(res.status).toBe(200);
        const json = await res.json();
        const check = scoreResponse.safeParse(json);
        expect(check.success, `${tier}: ${JSON.stringify(check.error?.issues)}`).toBe(true);
      }
    }
    const shadow = await h.callers.bureau.score({ ...bodies[0], options: { shadow_version: '2026.08.0' } });
    expect(scoreResponse.safeParse(await shadow.json()).success).toBe(true);

    const wrong = await h.callers.assess.score({ subject: {} });
    expect(errorBody.safeParse(await wrong.json()).success).toBe(true);
    // A validator that accepted anything would prove nothing.
    const good = (await (await h.callers.verify.score(bodies[0])).json()) as Record<string, unknown>;
    expect(scoreResponse.safeParse(good).success).toBe(true);
    expect(scoreResponse.safeParse({ ...good, score: 101 }).success).toBe(false);
    expect(scoreResponse.safeParse({ ...good, score_type: 'probability' }).success).toBe(false);
  });

  it('health and probe bodies validate against the served schemas', async () => {
    const health = documentValidator(doc, 'HealthResponse');
    expect(health.safeParse(await (await fetch(`${h.api.url}/v1/health`)).json()).success).toBe(true);
    const probe = documentValidator(doc, 'ProbeResponse');
    expect(probe.safeParse(await (await fetch(`${h.api.url}/livez`)).json()).success).toBe(true);
    expect(probe.safeParse(await (await fetch(`${h.api.url}/readyz`)).json()).success).toBe(true);
  });
});
