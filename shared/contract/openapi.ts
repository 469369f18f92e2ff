import { stringify } from 'yaml';
import { z } from 'zod';
import { BENIGN_EXCLUSIONS, COMPONENT_KEYS, REASON_CODES } from '../scoring/reason-codes.ts';
import { SCORE_VERSIONS, DEFAULT_VERSION } from '../scoring/versions.ts';
import { ERROR_CODES, type ErrorCode } from './errors.ts';
// Imported for their registration in the zod registry (`.meta({ id })`), which names the schemas.
import './outcome.ts';
import './request.ts';
import './response.ts';

/** The contract's own semver: bump minor for additions, major for anything a client could break on. */
export const CONTRACT_VERSION = '1.3.0';

const REQUEST_SCHEMAS = ['ScoreRequest', 'Subject', 'Context', 'ScoreOptions', 'OutcomeRequest'];
const RESPONSE_SCHEMAS = [
  'ScoreResponse',
  'OutcomeAccepted',
  'Component',
  'SubjectResolution',
  'ExplainResponse',
  'ReputationReports',
  'HealthResponse',
  'CapabilityHealth',
  'ProbeResponse',
  'Error',
  'ErrorItem',
];

type JsonSchema = Record<string, unknown>;

/**
 * JSON Schemas (2020-12, the dialect of OpenAPI 3.1) of the contract, straight from the zod
 * schemas that validate requests: request bodies as accepted (input), responses as produced
 * (output). Tests compare the served document against this.
 */
export function componentSchemas(): Record<string, JsonSchema> {
  const uri = (id: string) => `#/components/schemas/${id}`;
  const input = z.toJSONSchema(z.globalRegistry, { target: 'draft-2020-12', io: 'input', uri });
  const output = z.toJSONSchema(z.globalRegistry, { target: 'draft-2020-12', io: 'output', uri });
  const out: Record<string, JsonSchema> = {};
  const pick = (from: Record<string, JsonSchema>, ids: string[]) => {
    for (const id of ids) {
      const schema = from[id];
      if (!schema) throw new Error(`schema ${id} is not registered`);
      const { $schema: _s, $id: _i, ...rest } = schema;
      out[id] = rest;
    }
  };
  pick(input.schemas as Record<string, JsonSchema>, REQUEST_SCHEMAS);
  pick(output.schemas as Record<string, JsonSchema>, RESPONSE_SCHEMAS);
  return out;
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const header = (description: string, schema: JsonSchema) => ({ description, schema });
const h = (name: string) => ({ $ref: `#/components/headers/${name}` });

const HEADERS = {
  'X-Request-Id': header('Identifies this request in logs; echoes a sane X-Request-Id sent by the caller.', {
    type: 'string',
  }),
  'X-RateLimit-Limit': header('Requests permitted per second at this tier.', { type: 'integer', minimum: 0 }),
  'X-RateLimit-Remaining': header('Requests left in the current one-second window.', {
    type: 'integer',
    minimum: 0,
  }),
  'X-Credits-Remaining': header('Credits left this month; negative inside the overdraft grace.', {
    type: 'integer',
  }),
  'Retry-After': header('Whole seconds to wait before retrying; at least 1.', {
    type: 'integer',
    minimum: 1,
  }),
  'Idempotent-Replayed': header(
    '`true` when this is the stored answer to an earlier request with this key.',
    {
      type: 'string',
      enum: ['true'],
    },
  ),
  'Idempotency-Status': header(
    '`unavailable` when the request carried an Idempotency-Key while idempotency could not be checked ' +
      '(Redis unreachable): it was scored and billed as new, so a retry may score again.',
    { type: 'string', enum: ['unavailable'] },
  ),
  'WWW-Authenticate': header('The scheme to authenticate with.', { type: 'string', enum: ['Bearer'] }),
  Allow: header('The methods the route accepts.', { type: 'string' }),
};

/** What every answer from the rate limiter onwards carries (not 401, 403, 422: decided before it). */
const CONTROL_HEADERS: (keyof typeof HEADERS)[] = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-Credits-Remaining',
];

function errorExample(code: ErrorCode, field?: string) {
  return { errors: [{ code, message: ERROR_CODES[code].meaning, ...(field ? { field } : {}) }] };
}

function errorResponse(
  description: string,
  codes: ErrorCode[],
  headers: (keyof typeof HEADERS)[] = [],
  example?: unknown,
) {
  return {
    description: `${description} Codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
    headers: Object.fromEntries(['X-Request-Id', ...headers].map((n) => [n, h(n)])),
    content: {
      'application/json': {
        schema: ref('Error'),
        examples: Object.fromEntries(
          codes.map((c) => [c, { value: c === codes[0] && example ? example : errorExample(c) }]),
        ),
      },
    },
  };
}

const RESPONSES = {
  BadRequest: errorResponse('The body could not be read.', ['E_MALFORMED_JSON', 'E_BAD_REQUEST']),
  Unauthenticated: errorResponse(
    'Missing, malformed, unknown or revoked API key. Never billed.',
    ['E_UNAUTHENTICATED'],
    ['WWW-Authenticate'],
  ),
  CreditsExhausted: errorResponse(
    'Credits for the period are used up beyond the overdraft grace. Not billed, not scored.',
    ['E_CREDITS_EXHAUSTED'],
    CONTROL_HEADERS,
  ),
  EntitlementRequired: errorResponse(
    "An option the organisation's tier does not include. Not billed, not scored.",
    ['E_ENTITLEMENT_REQUIRED'],
    [],
    errorExample('E_ENTITLEMENT_REQUIRED', 'options.shadow_version'),
  ),
  MethodNotAllowed: errorResponse(
    'The route does not accept this method.',
    ['E_METHOD_NOT_ALLOWED'],
    ['Allow'],
  ),
  Conflict: errorResponse(
    'Idempotency conflict, or a retired score version. Not billed, not scored.',
    ['E_IDEMPOTENCY_MISMATCH', 'E_IDEMPOTENCY_IN_PROGRESS', 'E_SCORE_VERSION_RETIRED'],
    ['Retry-After', ...CONTROL_HEADERS],
  ),
  PayloadTooLarge: errorResponse('The body is larger than 64 KiB.', ['E_PAYLOAD_TOO_LARGE']),
  UnsupportedMediaType: errorResponse('The body is not application/json.', ['E_UNSUPPORTED_MEDIA_TYPE']),
  ValidationFailed: errorResponse(
    'Validation failed. Every violation of the body and the Idempotency-Key header is listed, one item each, ' +
      'with `field` as a dotted path. Not billed, not scored.',
    [
      'E_VALIDATION',
      'E_UNKNOWN_FIELD',
      'E_INVALID_PHONE_NUMBER',
      'E_INVALID_IP_ADDRESS',
      'E_INVALID_IDEMPOTENCY_KEY',
      'E_UNKNOWN_CONTEXT',
      'E_UNKNOWN_SCORE_VERSION',
    ],
    [],
    {
      errors: [
        { code: 'E_UNKNOWN_FIELD', message: "unknown field 'subject.ip'", field: 'subject.ip' },
        {
          code: 'E_VALIDATION',
          message: 'Too big: expected string to have <=256 characters',
          field: 'client_reference',
        },
        {
          code: 'E_INVALID_IDEMPOTENCY_KEY',
          message: 'Idempotency-Key must be 1 to 128 characters',
          field: 'Idempotency-Key',
        },
      ],
    },
  ),
  RateLimited: errorResponse(
    "The organisation's per-second rate was exceeded in this second. Not billed, not scored.",
    ['E_RATE_LIMITED'],
    ['Retry-After', ...CONTROL_HEADERS],
  ),
  HistoryUnavailable: errorResponse(
    'Score history cannot answer now (unreachable, or too many lookups in flight).',
    ['E_HISTORY_UNAVAILABLE', 'E_HISTORY_BUSY'],
    ['Retry-After'],
  ),
  NotFound: errorResponse('No such route or resource.', ['E_NOT_FOUND']),
  ScoreNotFound: errorResponse(
    'No score with this id for this organisation: unknown, made by another organisation, or past retention.',
    ['E_SCORE_NOT_FOUND'],
  ),
  Internal: errorResponse('Unexpected failure. Scoring never answers 5xx for an upstream outage.', [
    'E_INTERNAL',
  ]),
};

const r = (name: keyof typeof RESPONSES) => ({ $ref: `#/components/responses/${name}` });

const EXAMPLE_RESPONSE = {
  score_id: 'sc_019a4f0e6b3c7d2e8f1a2b3c4d5e6f70',
  tier: 'assess',
  score_version: '2026.11.0',
  score: 82,
  score_type: 'ranking',
  score_basis: 'riskier than 82 % of subjects in the reference population of 2026.11.0',
  band: 'critical',
  recommended_action: 'block',
  coverage: 'strong',
  subject: { phone_number: { e164: '+444012345678', valid: false, allocated: false } },
  components: [
    { component: 'caller_id_integrity', verdict: 'adverse', contribution: 45, detail: 'CLI_IMPOSSIBLE' },
    { component: 'ndc_range_risk', verdict: 'no_match', contribution: 0, detail: 'NDC_RANGE_UNKNOWN' },
  ],
  primary_risk_factor: { code: 'CLI_IMPOSSIBLE', narrative: REASON_CODES.CLI_IMPOSSIBLE },
  benign_exclusions: [],
  suppressed: [
    { component: 'reputation_ledger', available_in: 'bureau' },
    { component: 'cluster_id', available_in: 'bureau' },
    { component: 'shadow', available_in: 'bureau' },
  ],
  client_reference: 'call-7731',
  disclosure:
    'This score is a ranking of the subject against a reference population, not a probability of fraud. ' +
    'Use it with your own policy; a low score with thin coverage means the subject is unwatched, not clean.',
  degraded_sources: [],
  latency_ms: 1,
};

function document(): Record<string, unknown> {
  const rateHeaders = Object.fromEntries(
    [
      'X-Request-Id',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-Credits-Remaining',
      'Idempotent-Replayed',
      'Idempotency-Status',
    ].map((n) => [n, h(n)]),
  );
  const reqId = { 'X-Request-Id': h('X-Request-Id') };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Fraud Risk Scoring API',
      version: CONTRACT_VERSION,
      summary: 'Tiered fraud risk rankings for phone numbers and IP addresses.',
      description:
        'Scores are rankings relative to a frozen reference population of their `score_version`, never ' +
        'probabilities. Every response carries `X-Request-Id`; every error body has the `Error` shape. ' +
        'A method a route does not accept answers 405 (`#/components/responses/MethodNotAllowed`) with `Allow`; ' +
        'an unknown route answers 404 `E_NOT_FOUND`. The registries of component keys, reason codes, benign ' +
        'exclusions and error codes are published at the document root as `x-component-keys`, `x-reason-codes`, ' +
        '`x-benign-exclusions` and `x-error-codes`.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: 'http://127.0.0.1:8080', description: 'Local stack (`npm start`)' }],
    security: [{ bearer: [] }],
    tags: [
      { name: 'scoring', description: 'Score subjects and retrieve stored scores.' },
      { name: 'outcomes', description: 'Report what happened to a scored subject.' },
      { name: 'operations', description: 'Health, probes and this document. Public.' },
    ],
    paths: {
      '/v1/score': {
        post: {
          operationId: 'score',
          tags: ['scoring'],
          summary: 'Score a phone number, an IP address, or both',
          description:
            'Order of checks: authenticate, validate (422, then 403 for options the tier lacks, then 409 for a ' +
            'retired shadow version), rate limit, credits, idempotency, score. Refused requests are never billed.',
          parameters: [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              description:
                'Per organisation, kept 24 hours. Same key and body: the first 200 is replayed with ' +
                '`Idempotent-Replayed: true`. Same key, other body: 409. Empty or over 128 characters: 422.',
              schema: { type: 'string', minLength: 1, maxLength: 128 },
            },
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: ref('ScoreRequest'),
                examples: {
                  phone: { summary: 'Caller ID only', value: { subject: { phone_number: '+447911123456' } } },
                  full: {
                    summary: 'Both, with a context',
                    value: {
                      subject: { phone_number: '+447911123456', ip_address: '81.2.69.142' },
                      context: {
                        sector: 'remittance',
                        geography: { operating_countries: ['GB'], diaspora_corridors: ['NG'] },
                        collection_point: {
                          channel: 'voice_call_centre',
                          direction: 'inbound',
                          moment: 'payment',
                        },
                        risk_posture: 'balanced',
                      },
                      client_reference: 'call-7731',
                      options: { explain: true, max_latency_ms: 150 },
                    },
                  },
                },
              },
            },
          },
          responses: {
            '200': {
              description:
                'Scored (also when some sources answered on reduced evidence; see `degraded_sources`).',
              headers: rateHeaders,
              content: {
                'application/json': {
                  schema: ref('ScoreResponse'),
                  examples: { assess: { value: EXAMPLE_RESPONSE } },
                },
              },
            },
            '400': r('BadRequest'),
            '401': r('Unauthenticated'),
            '402': r('CreditsExhausted'),
            '403': r('EntitlementRequired'),
            '409': r('Conflict'),
            '413': r('PayloadTooLarge'),
            '415': r('UnsupportedMediaType'),
            '422': r('ValidationFailed'),
            '429': r('RateLimited'),
            '500': r('Internal'),
          },
        },
      },
      '/v1/outcomes': {
        post: {
          operationId: 'reportOutcome',
          tags: ['outcomes'],
          summary: 'Report what happened: fraud confirmed, a chargeback, abuse, or not fraud',
          description:
            "Every tier; never billed. Order of checks: authenticate, validate, rate limit (the tier's rate in a " +
            'window of its own, separate from scoring), idempotency, the referenced score (404). Each accepted ' +
            'outcome is streamed and stored for 13 months; `confirmed_fraud`, `chargeback` and `spam_or_abuse` ' +
            'count as one report per organisation against the subject in the reputation ledger within seconds, ' +
            'and a later `not_fraud` from the same organisation withdraws it.',
          parameters: [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              description:
                'Per organisation, kept 24 hours, separate from the keys of scoring. Same key and body: the ' +
                'first 202 is replayed with `Idempotent-Replayed: true`. Same key, other body: 409. Empty or ' +
                'over 128 characters: 422.',
              schema: { type: 'string', minLength: 1, maxLength: 128 },
            },
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: ref('OutcomeRequest'),
                examples: {
                  byScore: {
                    summary: 'About a score',
                    value: {
                      score_id: EXAMPLE_RESPONSE.score_id,
                      outcome: 'confirmed_fraud',
                      occurred_at: '2026-11-20T14:03:00Z',
                      note: 'caller asked for a SIM swap, account drained next day',
                      client_reference: 'case-5512',
                    },
                  },
                  bySubject: {
                    summary: 'About a subject',
                    value: { subject: { phone_number: '+447911123456' }, outcome: 'not_fraud' },
                  },
                },
              },
            },
          },
          responses: {
            '202': {
              description:
                'Accepted: streamed and stored, and applied to the reputation ledger within seconds.',
              headers: Object.fromEntries(
                ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'Idempotent-Replayed'].map(
                  (n) => [n, h(n)],
                ),
              ),
              content: {
                'application/json': {
                  schema: ref('OutcomeAccepted'),
                  examples: {
                    accepted: {
                      value: {
                        outcome_id: 'oc_019aa3c4d2e87a1b9c0d1e2f3a4b5c6d',
                        received_at: '2026-11-22T18:04:05.123Z',
                      },
                    },
                  },
                },
              },
            },
            '400': r('BadRequest'),
            '401': r('Unauthenticated'),
            '404': r('ScoreNotFound'),
            '409': r('Conflict'),
            '413': r('PayloadTooLarge'),
            '415': r('UnsupportedMediaType'),
            '422': r('ValidationFailed'),
            '429': r('RateLimited'),
            '500': r('Internal'),
          },
        },
      },
      '/v1/explain/{score_id}': {
        get: {
          operationId: 'explain',
          tags: ['scoring'],
          summary: 'Retrieve the retained evidence of a score',
          parameters: [
            {
              name: 'score_id',
              in: 'path',
              required: true,
              schema: { type: 'string', pattern: '^sc_[0-9a-f]{32}$' },
              example: EXAMPLE_RESPONSE.score_id,
            },
          ],
          responses: {
            '200': {
              description: 'The original response, the full tier-permitted evidence and the request as sent.',
              headers: reqId,
              content: { 'application/json': { schema: ref('ExplainResponse') } },
            },
            '401': r('Unauthenticated'),
            '404': r('ScoreNotFound'),
            '429': r('RateLimited'),
            '500': r('Internal'),
            '503': r('HistoryUnavailable'),
          },
        },
      },
      '/v1/health': {
        get: {
          operationId: 'health',
          tags: ['operations'],
          summary: 'Capabilities and score versions',
          security: [],
          responses: {
            '200': {
              description: 'Capability status keyed by component key, and the score versions.',
              headers: reqId,
              content: { 'application/json': { schema: ref('HealthResponse') } },
            },
            '404': r('NotFound'),
            // The per-address budget of refused requests applies to every route.
            '429': r('RateLimited'),
          },
        },
      },
      '/livez': {
        get: {
          operationId: 'livez',
          tags: ['operations'],
          summary: 'Liveness probe',
          security: [],
          responses: {
            '200': {
              description: 'The process runs.',
              headers: reqId,
              content: { 'application/json': { schema: ref('ProbeResponse') } },
            },
            '404': r('NotFound'),
            // The per-address budget of refused requests applies to every route.
            '429': r('RateLimited'),
          },
        },
      },
      '/readyz': {
        get: {
          operationId: 'readyz',
          tags: ['operations'],
          summary: 'Readiness probe',
          security: [],
          responses: {
            '200': {
              description:
                'The key replica is loaded, the published capability snapshots have been read once and the score ' +
                'path is warm. A capability with no snapshot published yet does not hold readiness back: it is ' +
                'served missing and GET /v1/health says so.',
              headers: reqId,
              content: { 'application/json': { schema: ref('ProbeResponse') } },
            },
            '404': r('NotFound'),
            // The per-address budget of refused requests applies to every route.
            '429': r('RateLimited'),
            '503': {
              description: 'Still loading the key replica or the capability snapshots, or warming up.',
              headers: reqId,
              content: { 'application/json': { schema: ref('ProbeResponse') } },
            },
          },
        },
      },
      '/v1/openapi.yaml': {
        get: {
          operationId: 'openapi',
          tags: ['operations'],
          summary: 'This document',
          security: [],
          responses: {
            '200': {
              description: 'The OpenAPI 3.1 document of the deployed API.',
              headers: reqId,
              // A YAML body parses to a mapping: `type: string` would fail any client that parses it.
              content: {
                'application/yaml': {
                  schema: {
                    type: 'object',
                    additionalProperties: true,
                    description: 'An OpenAPI 3.1 document.',
                  },
                },
              },
            },
            '404': r('NotFound'),
            // The per-address budget of refused requests applies to every route.
            '429': r('RateLimited'),
            '405': r('MethodNotAllowed'),
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            "An API key (`frs_live_` + 32 base62 characters) from the portal's Keys page. The tier comes from the key.",
        },
      },
      schemas: componentSchemas(),
      headers: HEADERS,
      responses: RESPONSES,
    },
    'x-component-keys': COMPONENT_KEYS,
    'x-reason-codes': REASON_CODES,
    'x-benign-exclusions': BENIGN_EXCLUSIONS,
    'x-error-codes': ERROR_CODES,
    'x-score-versions': SCORE_VERSIONS.map((v) => ({
      id: v.id,
      status: v.status,
      default: v === DEFAULT_VERSION,
    })),
  };
}

let cached: string | undefined;

/** The served document; built once per process (everything in it is fixed at build time). */
export function openApiYaml(): string {
  cached ??= stringify(document(), { aliasDuplicateObjects: false, lineWidth: 0 });
  return cached;
}
