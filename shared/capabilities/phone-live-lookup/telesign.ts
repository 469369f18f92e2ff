/**
 * Telesign Phone ID, mapped onto the internal finding (result.ts).
 *
 * Source of the shapes: Telesign's public developer documentation, read 2026-12 —
 * https://developer.telesign.com/enterprise/docs/phone-id-get-started (`POST
 * https://rest-ww.telesign.com/v1/phoneid/{complete_phone_number}`, HTTP Basic with the customer
 * id and API key, JSON body; top-level `status.code` 300 completed, 301 partially completed),
 * .../phone-id-identity-attributes-sim-swap (`addons.sim_swap`; `risk_indicator` 4 same day,
 * 3 within 72 hours, 2 within 3-14 days, 1 none or older than 15 days; add-on status 2800
 * completed, 2803 out of coverage, 2805 no information, 2811 processing timeout) and
 * .../phone-id-identity-attributes-porting-history (`addons.porting_history.past_x_days`;
 * `port_date`, `phone_type_current`, status 2805 "not ported in the last 90 days", 2806 add-on
 * not enabled). The Telesign SDKs (telesign, telesignenterprise `PhoneIdClient`) send the same
 * request. Phone types are read from `phone_type.description` (MOBILE, FIXED_LINE, VOIP...),
 * which the documentation shows beside the numeric code.
 *
 * Call forwarding (`call_forward_detection`) needs a consent record per request, which a score
 * request does not carry: it is not asked of Telesign. Phone ID Live (reachability, roaming) is
 * never asked: those are not stored anywhere.
 */
import type {
  LookupField,
  LookupFields,
  NetworkLineType,
  Porting,
  ProviderAnswer,
  SwapBucket,
} from './result.ts';

export interface TelesignCredentials {
  customerId: string;
  apiKey: string;
  /** https://rest-ww.telesign.com, or a stand-in's URL in tests. */
  baseUrl: string;
}

/** The fields Phone ID answers (its phone type comes with every request). */
export const TELESIGN_FIELDS: readonly LookupField[] = ['line_type', 'porting', 'sim_swap'];

/** Porting History covers the last 90 days; asking for all of them costs the same. */
const PORTING_DAYS = 90;

export function telesignRequest(creds: TelesignCredentials, e164: string, fields: readonly LookupField[]) {
  const addons: Record<string, unknown> = {};
  if (fields.includes('sim_swap')) addons.sim_swap = {};
  if (fields.includes('porting')) addons.porting_history = { past_x_days: PORTING_DAYS };
  const basic = Buffer.from(`${creds.customerId}:${creds.apiKey}`).toString('base64');
  return {
    url: new URL(`/v1/phoneid/${encodeURIComponent(e164.replace(/^\+/, ''))}`, creds.baseUrl).toString(),
    init: {
      method: 'POST',
      headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(Object.keys(addons).length > 0 ? { addons } : {}),
    },
  };
}

const PHONE_TYPES: Readonly<Record<string, NetworkLineType | null>> = {
  MOBILE: 'mobile',
  PREPAID: 'mobile',
  FIXED_LINE: 'landline',
  PAYPHONE: 'landline',
  VOIP: 'voip',
  TOLL_FREE: 'toll_free',
  RESTRICTED_PREMIUM: 'premium',
  PAGER: 'pager',
  PERSONAL: 'other',
  VOICEMAIL: 'other',
  OTHER: 'other',
  INVALID: null,
};

const RISK_BUCKETS: Readonly<Record<number, SwapBucket>> = {
  4: 'within_24h',
  3: 'within_72h',
  2: 'within_14d',
  1: 'none',
};

/** Add-on status codes that are final for the number: out of coverage, no information, not enabled. */
const ADDON_NO_DATA = new Set([2803, 2805, 2806]);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const statusCode = (o: Json): number | undefined => {
  const code = isObject(o.status) ? Number(o.status.code) : NaN;
  return Number.isFinite(code) ? code : undefined;
};

/** Reads a Phone ID answer for `fields`; throws on a body that is not the documented shape. */
export function parseTelesign(status: number, body: string, fields: readonly LookupField[]): ProviderAnswer {
  const json: unknown = JSON.parse(body);
  if (!isObject(json)) throw new Error('telesign: the body is not an object');
  const code = statusCode(json);
  if (status >= 500 || status === 429)
    return { kind: 'failed', code: `telesign:${code ?? status}`, retry: true };
  // Credentials refused: every lookup would fail alike until the operator fixes them.
  if (status === 401 || status === 403)
    return { kind: 'failed', code: `telesign:${code ?? status}`, retry: false };
  // Any other refusal is about the number (invalid, unsupported): final for it, cached as no data.
  if (status !== 200 || (code !== 300 && code !== 301)) {
    return { kind: 'fields', fields: { lineType: null, porting: null, simSwap: null } };
  }
  const out: LookupFields = {};
  if (fields.includes('line_type')) out.lineType = lineTypeOf(json.phone_type);
  if (fields.includes('sim_swap')) {
    const swap = addonOf(json.sim_swap, (a) => RISK_BUCKETS[Number(a.risk_indicator)] ?? null, null);
    if (swap !== undefined) out.simSwap = swap;
  }
  if (fields.includes('porting')) {
    const porting = addonOf(json.porting_history, portingOf, { ported: false });
    if (porting !== undefined) out.porting = porting;
  }
  return { kind: 'fields', fields: out };
}

function lineTypeOf(type: unknown): NetworkLineType | null {
  if (!isObject(type) || typeof type.description !== 'string') return null;
  const name = type.description.toUpperCase();
  return Object.hasOwn(PHONE_TYPES, name) ? (PHONE_TYPES[name] ?? null) : 'other';
}

/**
 * An add-on's value: `read` of it when completed (2800); `noInfo` when Telesign has no information
 * (2805: for porting history that documents "not ported in the last 90 days"); null for the other
 * final codes; undefined (ask again later) for a timeout or anything undocumented.
 */
function addonOf<T>(addon: unknown, read: (a: Json) => T, noInfo: T): T | null | undefined {
  if (addon === undefined) return undefined;
  if (!isObject(addon)) throw new Error('telesign: an add-on is not an object');
  const code = statusCode(addon);
  if (code === 2800) return read(addon);
  if (code === 2805) return noInfo;
  if (code !== undefined && ADDON_NO_DATA.has(code)) return null;
  return undefined;
}

function portingOf(a: Json): Porting {
  const at = typeof a.port_date === 'string' ? Date.parse(a.port_date) : NaN;
  return Number.isFinite(at) ? { ported: true, atMs: at } : { ported: true };
}
