import type { z } from 'zod';
import { duplicateKeyPaths } from './duplicate-keys.ts';
import type { ErrorCode, ErrorItem } from './errors.ts';
import { IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_KEY_PATTERN, ScoreRequest } from './request.ts';
import { isStorable } from './storable-text.ts';

const SPECIFIC_CODES: Record<string, ErrorCode> = {
  'subject.phone_number': 'E_INVALID_PHONE_NUMBER',
  'subject.ip_address': 'E_INVALID_IP_ADDRESS',
};

/** Most error items one answer lists; a body of 64 KiB must not make an answer many times that. */
export const MAX_ERROR_ITEMS = 20;
/** Longest field path echoed back; a caller's key name can be as long as the body. */
const MAX_FIELD_CHARS = 128;

/** A caller's key that is not storable is echoed with its characters escaped, never raw. */
const segment = (key: PropertyKey) => {
  const s = String(key);
  if (isStorable(s)) return s;
  return s.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
};

function dotted(path: readonly PropertyKey[]): string {
  const full = path.map(segment).join('.');
  return full.length > MAX_FIELD_CHARS ? `${full.slice(0, MAX_FIELD_CHARS)}...` : full;
}

/**
 * One 422 item per member name sent twice in one object of the JSON `text` (which JSON.parse
 * accepted), `field` the dotted path of the repeated name; none when every name is unique.
 */
export function duplicateKeyErrors(text: string): ErrorItem[] {
  return capErrors(
    duplicateKeyPaths(text).map((path) => {
      const field = dotted(path);
      return {
        code: 'E_DUPLICATE_KEY',
        message: `'${field}' is sent more than once; send each member once`,
        field,
      };
    }),
  );
}

/**
 * At most MAX_ERROR_ITEMS items; past that, the first ones and one last item saying how many were
 * left out, so the answer stays small whatever the body holds.
 */
export function capErrors(items: ErrorItem[]): ErrorItem[] {
  if (items.length <= MAX_ERROR_ITEMS) return items;
  const kept = items.slice(0, MAX_ERROR_ITEMS - 1);
  const omitted = items.length - kept.length;
  return [...kept, { code: 'E_VALIDATION', message: `${omitted} more errors omitted; fix these and retry` }];
}

/**
 * Turns every zod issue into one error item of the contract's shape (docs/contract.md "Validation and errors"), so a 422 lists all violations
 * in one pass. Unknown keys become one `E_UNKNOWN_FIELD` each, with the dotted path of the key.
 */
export function issuesToErrors(issues: readonly z.core.$ZodIssue[]): ErrorItem[] {
  const out: ErrorItem[] = [];
  for (const issue of issues) {
    const base = dotted(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const field = dotted([...issue.path, key]);
        out.push({ code: 'E_UNKNOWN_FIELD', message: `unknown field '${field}'`, field });
      }
      continue;
    }
    const field = base || undefined;
    const code = (field && SPECIFIC_CODES[field]) ?? 'E_VALIDATION';
    // A map key's own rule says what is wrong with it; zod's wrapper says only "Invalid key".
    const message = (issue.code === 'invalid_key' && issue.issues[0]?.message) || issue.message;
    out.push({ code, message, ...(field ? { field } : {}) });
  }
  return out;
}

/** The Idempotency-Key header as received: its value, or each value when it was sent more than once. */
export type IdempotencyKeyHeader = string | readonly string[] | undefined;

/**
 * Sent more than once, empty, over 128 characters, or holding anything but visible ASCII; absent
 * is fine. The field is the header's name.
 */
export function idempotencyKeyErrors(value: IdempotencyKeyHeader): ErrorItem[] {
  if (value === undefined) return [];
  if (typeof value !== 'string') {
    return [
      {
        code: 'E_INVALID_IDEMPOTENCY_KEY',
        message: `Idempotency-Key was sent ${value.length} times; send it once`,
        field: 'Idempotency-Key',
      },
    ];
  }
  if (value.length === 0 || value.length > IDEMPOTENCY_KEY_MAX) {
    return [
      {
        code: 'E_INVALID_IDEMPOTENCY_KEY',
        message: `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters`,
        field: 'Idempotency-Key',
      },
    ];
  }
  if (!IDEMPOTENCY_KEY_PATTERN.test(value)) {
    return [
      {
        code: 'E_INVALID_IDEMPOTENCY_KEY',
        message: 'Idempotency-Key must be visible ASCII (0x21-0x7E): no space, tab or other byte',
        field: 'Idempotency-Key',
      },
    ];
  }
  return [];
}

export type Validated<T = ScoreRequest> = { ok: true; request: T } | { ok: false; errors: ErrorItem[] };

/**
 * The schema pass of a request: the body and the Idempotency-Key header together, so one 422
 * reports every violation of both. Every route with a body runs it (services/api/http/route.ts).
 */
export function validateRequest<S extends z.ZodType>(
  schema: S,
  body: unknown,
  idempotencyKey: IdempotencyKeyHeader,
): Validated<z.infer<S>> {
  const parsed = schema.safeParse(body);
  const errors = [
    ...(parsed.success ? [] : issuesToErrors(parsed.error.issues)),
    ...idempotencyKeyErrors(idempotencyKey),
  ];
  if (errors.length > 0 || !parsed.success) return { ok: false, errors: capErrors(errors) };
  return { ok: true, request: parsed.data };
}

/** POST /v1/score. */
export function validateScoreRequest(body: unknown, idempotencyKey: IdempotencyKeyHeader): Validated {
  return validateRequest(ScoreRequest, body, idempotencyKey);
}
