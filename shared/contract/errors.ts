import { z } from 'zod';

/**
 * The registry of error codes: every `errors[].code` the API can answer with, the status it comes
 * with and what it means. Published in the OpenAPI document (`x-error-codes`); add codes here only.
 */
export const ERROR_CODES = {
  E_MALFORMED_JSON: { status: 400, meaning: 'The body is not valid JSON.' },
  E_BAD_REQUEST: { status: 400, meaning: 'The request could not be read (for example a broken encoding).' },
  E_UNAUTHENTICATED: {
    status: 401,
    meaning: 'The bearer API key is missing, malformed, unknown or revoked.',
  },
  E_CREDITS_EXHAUSTED: {
    status: 402,
    meaning: "The organisation's credits for the period are used up beyond the overdraft grace.",
  },
  E_ENTITLEMENT_REQUIRED: {
    status: 403,
    meaning: "The request asks for an option the organisation's tier does not include; `field` names it.",
  },
  E_NOT_FOUND: { status: 404, meaning: 'No such route.' },
  E_SCORE_NOT_FOUND: {
    status: 404,
    meaning:
      'No score with this id for this organisation (unknown, another organisation, or past retention).',
  },
  E_METHOD_NOT_ALLOWED: { status: 405, meaning: 'The route exists but not for this method; see `Allow`.' },
  E_IDEMPOTENCY_MISMATCH: {
    status: 409,
    meaning: 'The Idempotency-Key was used before with a different body.',
  },
  E_IDEMPOTENCY_IN_PROGRESS: {
    status: 409,
    meaning: 'A request with this Idempotency-Key is still being processed; retry after `Retry-After`.',
  },
  E_SCORE_VERSION_RETIRED: { status: 409, meaning: 'The requested score version is retired.' },
  E_REQUEST_TIMEOUT: {
    status: 408,
    meaning: 'The request line, headers or body did not arrive in time; the connection is closed.',
  },
  E_PAYLOAD_TOO_LARGE: {
    status: 413,
    meaning: 'The body is larger than the operation accepts: 64 KiB unless its description says otherwise.',
  },
  E_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    meaning:
      'The body is not declared as the media type of the operation (UTF-8 application/json, or text/csv).',
  },
  E_VALIDATION: { status: 422, meaning: 'A field breaks a rule of the schema; `field` names it.' },
  E_UNKNOWN_FIELD: {
    status: 422,
    meaning: 'A field the schema does not define; misspelt fields are refused, never ignored.',
  },
  E_DUPLICATE_KEY: {
    status: 422,
    meaning:
      'A member name appears twice in one JSON object; `field` is the path of the second. Nothing is read from such a body.',
  },
  E_INVALID_PHONE_NUMBER: { status: 422, meaning: 'The phone number is not `+` followed by digits (E.164).' },
  E_INVALID_IP_ADDRESS: {
    status: 422,
    meaning:
      'The IP address is not an IPv4 or IPv6 literal, or is written in a refused form: with a zone id, or the deprecated IPv4-compatible `::a.b.c.d`.',
  },
  E_INVALID_IDEMPOTENCY_KEY: {
    status: 422,
    meaning:
      'The Idempotency-Key header is empty, longer than 128 characters, not visible ASCII, or sent more than once.',
  },
  E_UNKNOWN_CONTEXT: {
    status: 422,
    meaning:
      'The `context_id` names no context saved for this organisation (and no inline context was sent).',
  },
  E_UNKNOWN_SCORE_VERSION: { status: 422, meaning: 'The requested score version does not exist.' },
  E_INVALID_LIST_ENTRY: {
    status: 422,
    meaning:
      'A list entry breaks a rule of its kind, effect, reason or expiry; `field` names it (`entries.3` of a JSON body, `line.17` of a CSV, counting the header as line 1).',
  },
  E_LIST_REFUSED: {
    status: 422,
    meaning:
      'A list CSV with bad lines is refused whole and nothing changes. This first item gives their count (also in `X-Invalid-Lines`); the items after it name the first 100.',
  },
  E_LIST_FULL: {
    status: 422,
    meaning:
      "The change would leave the organisation's list with more than 100,000 entries; nothing changed.",
  },
  E_RATE_LIMITED: {
    status: 429,
    meaning:
      "A per-second budget was exceeded in this second: the organisation's scoring or explain rate, its " +
      'refused requests, or (before authentication) refused requests from the client address.',
  },
  E_HEADERS_TOO_LARGE: {
    status: 431,
    meaning: 'The request line and headers are larger than 16 KiB; the connection is closed.',
  },
  E_HISTORY_UNAVAILABLE: {
    status: 503,
    meaning: 'Score history (ClickHouse) is unreachable; retry after `Retry-After`.',
  },
  E_HISTORY_BUSY: {
    status: 503,
    meaning:
      'Too many score-history lookups are in flight (for this organisation or the node); retry after `Retry-After`.',
  },
  E_INTERNAL: { status: 500, meaning: 'Unexpected failure; the request is not billed.' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The error body (docs/contract.md "Validation and errors"): every non-2xx answer of the API has this shape. */
export const ErrorItem = z
  .object({
    code: z
      .string()
      .regex(/^E_[A-Z_]+$/)
      .meta({ description: 'A code of the error registry (`x-error-codes`).' }),
    message: z.string().min(1).meta({ description: 'Human-readable; do not parse.' }),
    field: z
      .string()
      .optional()
      .meta({ description: 'Dotted path of the offending request field, or a header name.' }),
  })
  .meta({ id: 'ErrorItem' });

export const ErrorBody = z
  .object({ errors: z.array(ErrorItem).min(1) })
  .meta({ id: 'Error', description: 'Every non-2xx answer. A 422 lists every violation, one item each.' });

export type ErrorItem = z.infer<typeof ErrorItem>;
export type ErrorBody = z.infer<typeof ErrorBody>;

/** An error the API answers with; thrown or returned by handlers and rendered by one middleware. */
export class ApiError extends Error {
  readonly status: number;
  readonly items: ErrorItem[];
  readonly headers: Record<string, string>;

  constructor(status: number, items: ErrorItem[] | ErrorItem, headers: Record<string, string> = {}) {
    const list = Array.isArray(items) ? items : [items];
    super(list.map((i) => i.message).join('; '));
    this.status = status;
    this.items = list;
    this.headers = headers;
  }

  body(): ErrorBody {
    return { errors: this.items };
  }
}
