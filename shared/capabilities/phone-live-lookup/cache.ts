/**
 * What a lookup leaves in Redis for every node, and for how long: one key per field of a number,
 * named by the number's keyed digest (subject-key.ts, the ledger's naming: a Redis dump does not
 * give the numbers back), each with its own time to live. A provider's "no data" is kept like an
 * answer, so a number the provider cannot cover is not paid for again on every request.
 *
 * Roaming and reachability have no field here: they are never stored.
 */
import { DAY } from '../definition.ts';
import { FIELD_PROPERTY, type LookupField, type LookupFields } from './result.ts';

/**
 * Seconds each field is kept:
 * - line type, 7 days: it changes only when the number moves network or service, which a port
 *   shows first (kept a day, below); paid per lookup, it is the field most worth sharing.
 * - porting, 1 day: a port completes within a business day; a number ported today is seen as
 *   such by tomorrow at the latest, and "in the last days" is what scoring asks.
 * - SIM swap and forwarding, 15 minutes: an account takeover swaps the SIM (or turns forwarding
 *   on) minutes before it authenticates; a "none" kept longer would hide exactly that. Under the
 *   hour the decisions allow, long enough that a burst of requests for one number pays once.
 */
export const FIELD_TTL_S: Readonly<Record<LookupField, number>> = {
  line_type: 7 * DAY,
  porting: DAY,
  sim_swap: 15 * 60,
  forwarding: 15 * 60,
};

/** The key of one field of the number named `digest`; the digest is the hash tag (one slot). */
export function fieldKey(prefix: string, digest: string, field: LookupField): string {
  return `${prefix}:phone-lookup:{${digest}}:${field}`;
}

/** Lookups an organisation made in a calendar month (UTC): its cap is checked against this. */
export function usedKey(prefix: string, orgId: string, nowMs: number): string {
  return `${prefix}:phone-lookup:used:{${orgId}}:${new Date(nowMs).toISOString().slice(0, 7)}`;
}

/** The fields of `fields` as stored values (JSON, `null` for no data), by field. */
export function encodeFields(fields: LookupFields): [LookupField, string][] {
  const out: [LookupField, string][] = [];
  for (const [field, prop] of Object.entries(FIELD_PROPERTY) as [LookupField, keyof LookupFields][]) {
    const value = fields[prop];
    if (value !== undefined) out.push([field, JSON.stringify(value)]);
  }
  return out;
}

/** Stored values back to fields; a value that does not parse is left out (asked again). */
export function decodeFields(stored: readonly [LookupField, string | null][]): LookupFields {
  const out: Record<string, unknown> = {};
  for (const [field, raw] of stored) {
    if (raw === null) continue;
    try {
      out[FIELD_PROPERTY[field]] = JSON.parse(raw);
    } catch {
      // A damaged entry is a miss.
    }
  }
  return out as LookupFields;
}
