import type { z } from 'zod';
import type { ErrorItem } from './errors.ts';

const SPECIFIC_CODES: Record<string, string> = {
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
