/**
 * The parts of the OpenAPI document every operation shares: the response headers and the error
 * answers, each error answer named once with its codes (its status is theirs). An operation
 * definition (operation.ts) names the ones it can give; openapi.ts serves them as components.
 */
import { z } from 'zod';
import { ERROR_CODES, ErrorBody, type ErrorCode } from './errors.ts';

type JsonSchema = Record<string, unknown>;

/** A reference to a component schema: a zod schema registered with an id (`.meta({ id })`). */
export function schemaRef(schema: z.ZodType): { $ref: string } {
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error('a schema referenced by the document has no id: register it with .meta({ id })');
  return { $ref: `#/components/schemas/${id}` };
}
const header = (description: string, schema: JsonSchema) => ({ description, schema });
const h = (name: string) => ({ $ref: `#/components/headers/${name}` });

export const HEADERS = {
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
  'X-Invalid-Lines': header('How many lines of a refused list CSV are bad (the body names the first 100).', {
    type: 'integer',
    minimum: 1,
  }),
};

export type HeaderName = keyof typeof HEADERS;

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
        schema: schemaRef(ErrorBody),
        examples: Object.fromEntries(
          codes.map((c) => [c, { value: c === codes[0] && example ? example : errorExample(c) }]),
        ),
      },
    },
  };
}

export const RESPONSES = {
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
  PayloadTooLarge: errorResponse(
    'The body is larger than the operation accepts (64 KiB unless its description says otherwise).',
    ['E_PAYLOAD_TOO_LARGE'],
  ),
  UnsupportedMediaType: errorResponse('The body is not of the media type the operation takes.', [
    'E_UNSUPPORTED_MEDIA_TYPE',
  ]),
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
  ListValidationFailed: errorResponse(
    "A change to the organisation's list is refused whole; nothing changed. The body's schema and the " +
      'Idempotency-Key are checked as for every operation, then each entry by the rules of its kind. A CSV ' +
      'with bad lines answers `E_LIST_REFUSED` (their count, also in `X-Invalid-Lines`) followed by one ' +
      '`E_INVALID_LIST_ENTRY` per bad line, the first 100, `field` `line.N`. Not billed.',
    [
      'E_INVALID_LIST_ENTRY',
      'E_LIST_REFUSED',
      'E_LIST_FULL',
      'E_VALIDATION',
      'E_UNKNOWN_FIELD',
      'E_DUPLICATE_KEY',
      'E_INVALID_IDEMPOTENCY_KEY',
    ],
    ['X-Invalid-Lines'],
    {
      errors: [
        {
          code: 'E_INVALID_LIST_ENTRY',
          message: "entries.1: value: '10.0.0.1/8' has host bits set; write 10.0.0.0/8",
          field: 'entries.1',
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

/** The name of a shared error answer of the document. */
export type ErrorResponseName = keyof typeof RESPONSES;

/** A reference to a shared response (an error answer) of the document. */
export const responseRef = (name: ErrorResponseName) => ({ $ref: `#/components/responses/${name}` });

/**
 * The refusals every authenticated operation with a JSON body and an Idempotency-Key shares:
 * unreadable body, no key, idempotency conflict, too large, not JSON, invalid, rate, failure.
 */
export const JSON_BODY_REFUSALS = [
  'BadRequest',
  'Unauthenticated',
  'Conflict',
  'PayloadTooLarge',
  'UnsupportedMediaType',
  'ValidationFailed',
  'RateLimited',
  'Internal',
] as const satisfies readonly ErrorResponseName[];

/** The response headers named, as references to the document's headers. */
export const headerRefs = (...names: HeaderName[]) => Object.fromEntries(names.map((n) => [n, h(n)]));

/** The codes of a shared error answer: the keys of its examples, one per code, first the main one. */
export const errorCodes = (name: ErrorResponseName): ErrorCode[] =>
  Object.keys(RESPONSES[name].content['application/json'].examples) as ErrorCode[];

/**
 * The status of a shared error answer: that of its codes, which the error registry gives. An
 * answer mixing statuses would need one status per code, so it throws.
 */
export function errorStatus(name: ErrorResponseName): number {
  const codes = errorCodes(name);
  const statuses = new Set(codes.map((c) => ERROR_CODES[c].status));
  const [status] = statuses;
  if (statuses.size !== 1 || status === undefined) throw new Error(`${name}: its codes differ in status`);
  return status;
}
