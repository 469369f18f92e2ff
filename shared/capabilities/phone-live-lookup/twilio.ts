/**
 * Twilio Lookup v2, mapped onto the internal finding (result.ts).
 *
 * Source of the shapes: Twilio's OpenAPI description, repository twilio/twilio-oai,
 * spec/json/twilio_lookups_v2.json at commit 03627cd35591fa50c2b647594a2ab3f0a12ef6ce
 * (`GET https://lookups.twilio.com/v2/PhoneNumbers/{PhoneNumber}?Fields=...`, HTTP Basic with the
 * account SID and auth token; the examples fetchLineTypeIntelligence, fetchSimSwap,
 * fetchSimSwapWithoutLastSimSwapDate, fetchSimSwapWithFalseSwapped, fetchCallForwarding,
 * fetchLiveActivityPorting, fetchInvalid). The error codes are Twilio's error dictionary
 * (https://www.twilio.com/docs/api/errors/<code>): 20404 not found, 20429 too many requests,
 * 20003 authentication, 60600 unprovisioned or out of coverage, 60606 package not enabled,
 * 60607/60608 provider unavailable / replied with an error, 60612 not a mobile number, 60614 and
 * 60619 not in this Twilio region, 60626 per-number rate limit. 60620 is the code the issue names
 * as one Twilio says not to retry; its page could not be read here, so it is treated as final.
 *
 * `live_activity.roaming`, `roaming_carrier` and `connectivity` are never read: roaming and
 * reachability are not stored anywhere (some jurisdictions forbid it).
 */
import type { LookupField, LookupFields, NetworkLineType, ProviderAnswer, SwapBucket } from './result.ts';
import { swapBucketOfAge } from './result.ts';

export interface TwilioCredentials {
  accountSid: string;
  authToken: string;
  /** https://lookups.twilio.com, or a stand-in's URL in tests. */
  baseUrl: string;
}

/** The Lookup v2 package that answers each internal field. */
const PACKAGE: Record<LookupField, string> = {
  line_type: 'line_type_intelligence',
  sim_swap: 'sim_swap',
  forwarding: 'call_forwarding',
  porting: 'live_activity',
};

/** Every field Twilio answers. */
export const TWILIO_FIELDS: readonly LookupField[] = ['line_type', 'porting', 'sim_swap', 'forwarding'];

/** The request for `fields` of `e164`: only the packages asked for are billed. */
export function twilioRequest(creds: TwilioCredentials, e164: string, fields: readonly LookupField[]) {
  const url = new URL(`/v2/PhoneNumbers/${encodeURIComponent(e164)}`, creds.baseUrl);
  url.searchParams.set('Fields', fields.map((f) => PACKAGE[f]).join(','));
  const basic = Buffer.from(`${creds.accountSid}:${creds.authToken}`).toString('base64');
  return { url: url.toString(), init: { method: 'GET', headers: { Authorization: `Basic ${basic}` } } };
}

/**
 * Codes Twilio documents as about the number itself: asking again does not change the answer
 * (60626 is a per-number rate limit: asking again makes it worse). The field is cached as no data.
 */
const FINAL_FOR_NUMBER = new Set([20404, 60600, 60612, 60614, 60619, 60620, 60626]);
/** Codes about the account (credentials, a package not enabled): every lookup would fail alike. */
const ACCOUNT_ERRORS = new Set([20003, 60606]);

/** The documented line types of `line_type_intelligence.type`. */
const LINE_TYPES: Readonly<Record<string, NetworkLineType | null>> = {
  mobile: 'mobile',
  landline: 'landline',
  fixedVoip: 'fixed_voip',
  nonFixedVoip: 'non_fixed_voip',
  tollFree: 'toll_free',
  premium: 'premium',
  sharedCost: 'premium',
  pager: 'pager',
  personal: 'other',
  uan: 'other',
  voicemail: 'other',
  unknown: null,
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads an HTTP answer of Lookup v2 for `fields`. Throws on a body that is not the documented
 * shape (the client counts it as a failure).
 */
export function parseTwilio(
  status: number,
  body: string,
  fields: readonly LookupField[],
  nowMs: number,
): ProviderAnswer {
  const json: unknown = JSON.parse(body);
  if (!isObject(json)) throw new Error('twilio: the body is not an object');
  if (status !== 200) return twilioError(status, json, fields);
  if (json.valid === false) return { kind: 'fields', fields: noData(fields) };
  const out: LookupFields = {};
  for (const field of fields) {
    const value = packageValue(field, json[PACKAGE[field]], nowMs);
    if (value !== undefined) (out as Record<string, unknown>)[propertyOf(field)] = value;
  }
  return { kind: 'fields', fields: out };
}

function twilioError(status: number, json: Json, fields: readonly LookupField[]): ProviderAnswer {
  const code = typeof json.code === 'number' ? json.code : status;
  if (FINAL_FOR_NUMBER.has(code)) return { kind: 'fields', fields: noData(fields) };
  // 429 (20429) and 5xx are Twilio's to recover from: asked again later, and they trip the breaker.
  return { kind: 'failed', code: `twilio:${code}`, retry: !ACCOUNT_ERRORS.has(code) && status !== 401 };
}

function propertyOf(field: LookupField): keyof LookupFields {
  return field === 'line_type' ? 'lineType' : field === 'sim_swap' ? 'simSwap' : field;
}

function noData(fields: readonly LookupField[]): LookupFields {
  return Object.fromEntries(fields.map((f) => [propertyOf(f), null])) as LookupFields;
}

/** One package's value: undefined when Twilio could not answer now, null when it has no data. */
function packageValue(field: LookupField, pkg: unknown, nowMs: number) {
  if (pkg === null || pkg === undefined) return undefined;
  if (!isObject(pkg)) throw new Error(`twilio: ${PACKAGE[field]} is not an object`);
  const code = pkg.error_code;
  if (typeof code === 'number')
    return FINAL_FOR_NUMBER.has(code) || ACCOUNT_ERRORS.has(code) ? null : undefined;
  switch (field) {
    case 'line_type':
      return typeof pkg.type === 'string'
        ? Object.hasOwn(LINE_TYPES, pkg.type)
          ? (LINE_TYPES[pkg.type] ?? null)
          : 'other'
        : null;
    case 'sim_swap':
      return swapOf(pkg.last_sim_swap, nowMs);
    case 'forwarding':
      return typeof pkg.call_forwarding_status === 'boolean' ? pkg.call_forwarding_status : null;
    case 'porting':
      // A string in the documented examples ("true"/"false"); a boolean is read alike. No date.
      return pkg.ported === 'true' || pkg.ported === true
        ? { ported: true }
        : pkg.ported === 'false' || pkg.ported === false
          ? { ported: false }
          : null;
  }
}

/**
 * `last_sim_swap`: with `last_sim_swap_date`, its age decides the bucket; without it,
 * `swapped_in_period` says whether a swap happened within `swapped_period` (an ISO 8601
 * duration such as PT24H), so a swap is put in the narrowest bucket holding the whole period.
 * No swap within a period of 14 days or more is `none`; within a shorter one, nothing is known.
 */
function swapOf(last: unknown, nowMs: number): SwapBucket | null {
  if (!isObject(last)) return null;
  const date = typeof last.last_sim_swap_date === 'string' ? Date.parse(last.last_sim_swap_date) : NaN;
  if (Number.isFinite(date)) return swapBucketOfAge(Math.max(0, nowMs - date));
  const periodMs = typeof last.swapped_period === 'string' ? durationMs(last.swapped_period) : undefined;
  if (periodMs === undefined || typeof last.swapped_in_period !== 'boolean') return null;
  if (last.swapped_in_period) return swapBucketOfAge(periodMs);
  return periodMs >= 14 * 86_400_000 ? 'none' : null;
}

/** An ISO 8601 duration of days, hours, minutes and seconds (P2D, PT24H, PT15282H33M44S). */
export function durationMs(iso: string): number | undefined {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(iso);
  if (!m || iso === 'P' || iso.endsWith('T')) return undefined;
  const [d, h, min, s] = [m[1], m[2], m[3], m[4]].map((x) => Number(x ?? 0)) as [
    number,
    number,
    number,
    number,
  ];
  return (((d * 24 + h) * 60 + min) * 60 + s) * 1000;
}
