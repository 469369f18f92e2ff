import type { z } from 'zod';
import type { ErrorCode, ErrorItem } from './errors.ts';
import { OutcomeRequest } from './outcome.ts';
import { IDEMPOTENCY_KEY_MAX, ScoreRequest } from './request.ts';

const SPECIFIC_CODES: Record<string, ErrorCode> = {
  'subject.phone_number': 'E_INVALID_PHONE_NUMBER',
  'subject.ip_address': 'E_INVALID_IP_ADDRESS',
};

function dotted(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/**
 * Turns every zod issue into one error item of the spec's shape, so a 422 lists all violations
 * in one pass. Unknown keys become one `E_UNKNOWN_FIELD` each, with the dotted path of the key.
 */
export function issuesToErrors(issues: readonly z.core.$ZodIssue[]): ErrorItem[] {
  const out: ErrorItem[] = [];
  for (const issue of issues) {
    const base = dotted(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const field = base ? `${base}.${key}` : key;
        out.push({ code: 'E_UNKNOWN_FIELD', message: `unknown field '${field}'`, field });
      }
      continue;
    }
    const field = base || undefined;
    const code = (field && SPECIFIC_CODES[field]) ?? 'E_VALIDATION';
    out.push({ code, message: issue.message, ...(field ? { field } : {}) });
  }
  return out;
}

/** Empty or over 128 characters; absent is fine. The field is the header's name. */
export function idempotencyKeyErrors(value: string | undefined): ErrorItem[] {
  if (value === undefined) return [];
  if (value.length === 0 || value.length > IDEMPOTENCY_KEY_MAX) {
    return [
      {
        code: 'E_INVALID_IDEMPOTENCY_KEY',
        message: `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters`,
        field: 'Idempotency-Key',
      },
    ];
  }
  return [];
}

export type Validated<T = ScoreRequest> = { ok: true; request: T } | { ok: false; errors: ErrorItem[] };

/**
 * The schema pass of a request: the body and the Idempotency-Key header together, so one 422
 * reports every violation of both.
 */
function validateRequest<S extends z.ZodType>(
  schema: S,
  body: unknown,
  idempotencyKey: string | undefined,
): Validated<z.infer<S>> {
  const parsed = schema.safeParse(body);
  const errors = [
    ...(parsed.success ? [] : issuesToErrors(parsed.error.issues)),
    ...idempotencyKeyErrors(idempotencyKey),
  ];
  if (errors.length > 0 || !parsed.success) return { ok: false, errors };
  return { ok: true, request: parsed.data };
}

/** POST /v1/score. */
export function validateScoreRequest(body: unknown, idempotencyKey: string | undefined): Validated {
  return validateRequest(ScoreRequest, body, idempotencyKey);
}

/** POST /v1/outcomes. */
export function validateOutcomeRequest(
  body: unknown,
  idempotencyKey: string | undefined,
): Validated<OutcomeRequest> {
  return validateRequest(OutcomeRequest, body, idempotencyKey);
}
