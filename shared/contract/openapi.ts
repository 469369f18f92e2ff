/**
 * The OpenAPI document's contract-wide parts: info and version, the component schemas (from the
 * zod schemas), the shared headers and error responses, the registries. Its operations are
 * declared by the route modules beside their handlers (services/api/routes/*.ts) and collected
 * in services/api/openapi/document.ts, which serves the whole.
 */
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
export const CONTRACT_VERSION = '1.4.0';

const REQUEST_SCHEMAS = [
  'ScoreRequest',
  'Subject',
  'Context',
  'CountryCode',
  'ScoreOptions',
  'OutcomeRequest',
];
const RESPONSE_SCHEMAS = [
  'ScoreResponse',
  'OutcomeAccepted',
  'Component',
  'SubjectResolution',
  'ExplainResponse',
  'ReputationReports',
  'HealthResponse',
  'CapabilityHealth',
  'DeploymentTopology',
  'ProbeResponse',
  'Error',
  'ErrorItem',
];

type JsonSchema = Record<string, unknown>;

/** An OpenAPI Operation Object; the parts shared by every operation are typed. */
export interface OperationSpec {
  operationId: string;
  tags: ('scoring' | 'outcomes' | 'operations')[];
  summary: string;
  description?: string;
  /** `[]` for a public operation; absent: the document's bearer security applies. */
  security?: [];
  parameters?: Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, Record<string, unknown>>;
}

/**
 * One operation of the document, declared by the route module that serves it
 * (services/api/routes/*.ts), so the document cannot describe a route that is not there.
 */
export interface DeclaredOperation {
  method: 'get' | 'post';
  /** The OpenAPI path template; `{name}` is a path parameter. */
  path: string;
  spec: OperationSpec;
}

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

/** A reference to a component schema. */
export const schemaRef = (id: string) => ({ $ref: `#/components/schemas/${id}` });
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

type HeaderName = keyof typeof HEADERS;

/** What every answer from the rate limiter onwards carries (not 401, 403, 422: decided before it). */
const CONTROL_HEADERS: HeaderName[] = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-Credits-Remaining'];

function errorExample(code: ErrorCode, field?: string) {
  return { errors: [{ code, message: ERROR_CODES[code].meaning, ...(field ? { field } : {}) }] };
}

function errorResponse(
  description: string,
  codes: ErrorCode[],
  headers: HeaderName[] = [],
  example?: unknown,
) {
  return {
    description: `${description} Codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
    headers: Object.fromEntries(['X-Request-Id', ...headers].map((n) => [n, h(n)])),
    content: {
      'application/json': {
        schema: schemaRef('Error'),
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
      'with `field` as a dotted path. A body naming a member twice in one object gets its `E_DUPLICATE_KEY` ' +
      'items alone, before its fields are checked. Not billed, not scored.',
    [
      'E_VALIDATION',
      'E_UNKNOWN_FIELD',
      'E_DUPLICATE_KEY',
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

/** A reference to a shared response (an error answer) of the document. */
export const responseRef = (name: keyof typeof RESPONSES) => ({ $ref: `#/components/responses/${name}` });

/**
 * The refusals every authenticated operation with a JSON body shares, by status (an object's
 * integer keys enumerate in ascending order, so spreading it keeps the statuses sorted).
 */
export const JSON_BODY_REFUSALS = {
  '400': responseRef('BadRequest'),
  '401': responseRef('Unauthenticated'),
  '409': responseRef('Conflict'),
  '413': responseRef('PayloadTooLarge'),
  '415': responseRef('UnsupportedMediaType'),
  '422': responseRef('ValidationFailed'),
  '429': responseRef('RateLimited'),
  '500': responseRef('Internal'),
};

/** The response headers named, as references to the document's headers. */
export const headerRefs = (...names: HeaderName[]) => Object.fromEntries(names.map((n) => [n, h(n)]));

/** The example score of the document (its `score_id` is the example of explain and outcomes too). */
export const EXAMPLE_RESPONSE = {
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

function document(operations: readonly DeclaredOperation[]): Record<string, unknown> {
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
    paths: pathsOf(operations),
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

/**
 * The `paths` of the document, in the order the operations are given. Two declarations of one
 * method and path are a mistake, not an override.
 */
function pathsOf(operations: readonly DeclaredOperation[]): Record<string, Record<string, OperationSpec>> {
  const paths: Record<string, Record<string, OperationSpec>> = {};
  for (const { method, path, spec } of operations) {
    const item = (paths[path] ??= {});
    if (item[method]) throw new Error(`${method.toUpperCase()} ${path} is declared twice`);
    item[method] = spec;
  }
  return paths;
}

/**
 * The OpenAPI document as YAML: the contract-wide parts above (info, schemas, headers, shared
 * responses, registries) and the operations the API's route modules declare beside their handlers
 * (services/api/openapi/document.ts collects them).
 */
export function renderOpenApiYaml(operations: readonly DeclaredOperation[]): string {
  return stringify(document(operations), { aliasDuplicateObjects: false, lineWidth: 0 });
}
