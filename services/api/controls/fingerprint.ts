import { sha256Hex } from '../../../shared/sha256.ts';

/**
 * JSON with object keys sorted at every depth, so two bodies that differ only in key order or
 * whitespace are the same request. Array order is meaning and is kept.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The fingerprint an Idempotency-Key is bound to: SHA-256 of the canonical body. */
export function bodyFingerprint(body: unknown): string {
  return sha256(canonicalJson(body));
}

export function sha256(text: string): string {
  return sha256Hex(text);
}
