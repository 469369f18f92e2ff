/**
 * `new Date(ms).toISOString()`, with the date and time to the second formatted once a second:
 * a Date and its formatting for every score (the audit record's `scored_at`) cost about 2 µs in
 * the profile, where the milliseconds alone are three digits.
 */
let cachedSecond = Number.NaN;
let cachedPrefix = '';

export function isoTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 20);
  }
  return `${cachedPrefix}${String(ms - second * 1000).padStart(3, '0')}Z`;
}
