/**
 * The one internal finding both provider adapters map onto (twilio.ts, telesign.ts), what the
 * cache keeps of it per field (cache.ts) and what the capability's finding reads (index.ts).
 * Roaming and reachability are not part of it: some jurisdictions forbid storing them, and
 * nothing here scores them, so the adapters drop them before anything else sees the answer.
 */

/** The providers an operator can license; `PHONE_LOOKUP_PROVIDER` chooses one. */
export const PHONE_LOOKUP_PROVIDERS = ['twilio', 'telesign'] as const;
export type PhoneLookupProvider = (typeof PHONE_LOOKUP_PROVIDERS)[number];

/**
 * What the lookup did for one request, as its audit record keeps it (and ClickHouse counts it):
 * - asked the provider, one billed lookup counted against the cap: `answered`, `no_data`,
 *   `failed`, or `timeout` (the request stopped waiting; the lookup goes on and fills the cache);
 * - asked nothing: `cache_hit` (every field cached), `joined` (a lookup another request started
 *   on this node answered it, paid by that request), `cap` (the monthly cap reached), `breaker`
 *   (open), `redis` (the cache or the cap could not be read: no lookup is made blind).
 */
export const LOOKUP_OUTCOMES = [
  'answered',
  'no_data',
  'failed',
  'timeout',
  'cache_hit',
  'joined',
  'cap',
  'breaker',
  'redis',
] as const;
export type LookupOutcome = (typeof LOOKUP_OUTCOMES)[number];

/** The outcomes that asked the provider: each one billed and counted against the cap. */
export const BILLED_OUTCOMES: readonly LookupOutcome[] = ['answered', 'no_data', 'failed', 'timeout'];

/**
 * The network's line type. `voip` is VoIP whose fixedness the provider does not tell (Telesign's
 * VOIP); `non_fixed_voip` and `fixed_voip` are Twilio's split of it.
 */
export type NetworkLineType =
  | 'mobile'
  | 'landline'
  | 'fixed_voip'
  | 'non_fixed_voip'
  | 'voip'
  | 'toll_free'
  | 'premium'
  | 'pager'
  | 'other';

/**
 * When the SIM was last swapped, in Telesign's documented buckets (its `risk_indicator` 4..1):
 * within 24 hours ("the same day"), within 72 hours, within 3 to 14 days, none in 14 days. Twilio's
 * `last_sim_swap` is mapped onto the same buckets (twilio.ts).
 */
export const SWAP_BUCKETS = ['within_24h', 'within_72h', 'within_14d', 'none'] as const;
export type SwapBucket = (typeof SWAP_BUCKETS)[number];

/** Ported away from the range's original operator; `atMs` when the provider dates the port. */
export interface Porting {
  ported: boolean;
  atMs?: number;
}

/**
 * What one lookup said, field by field. A field absent: not asked, or the provider could not
 * answer now (ask again). `null`: the provider answered that it has no data for this number and
 * field (out of coverage, not a mobile number...), which is cached like an answer so the number is
 * not asked again, and paid for again, until the field's time to live ends.
 */
export interface LookupFields {
  lineType?: NetworkLineType | null;
  porting?: Porting | null;
  simSwap?: SwapBucket | null;
  forwarding?: boolean | null;
}

/** The fields a lookup asks for, by the name the cache stores them under. */
export const LOOKUP_FIELDS = ['line_type', 'porting', 'sim_swap', 'forwarding'] as const;
export type LookupField = (typeof LOOKUP_FIELDS)[number];

export const FIELD_PROPERTY = {
  line_type: 'lineType',
  porting: 'porting',
  sim_swap: 'simSwap',
  forwarding: 'forwarding',
} as const satisfies Record<LookupField, keyof LookupFields>;

/**
 * A provider's answer as its adapter reads it: the fields, or a failure. `retry: false` is an
 * error the provider documents as final for the number (an invalid number, a package not
 * enabled): the client does not ask again for it. Failures trip the breaker; `no_data` does not.
 */
export type ProviderAnswer =
  { kind: 'fields'; fields: LookupFields } | { kind: 'failed'; code: string; retry: boolean };

/** The SIM-swap bucket of a swap `ageMs` ago. */
export function swapBucketOfAge(ageMs: number): SwapBucket {
  const hours = ageMs / 3_600_000;
  if (hours <= 24) return 'within_24h';
  if (hours <= 72) return 'within_72h';
  if (hours <= 14 * 24) return 'within_14d';
  return 'none';
}
