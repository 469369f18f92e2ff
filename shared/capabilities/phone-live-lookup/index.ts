import type { Moment } from '../../vocabulary/scoring-input.ts';
import type { CapabilityFinding } from '../definition.ts';
import { defineCapability, DAY } from '../definition.ts';
import type { LookupFields } from './result.ts';

/**
 * What the node hands the finding for one request (services/api/capabilities/phone-lookup.ts):
 * the fields the lookup or the cache gave, or `unavailable` when it could not answer within the
 * caller's budget (timeout, provider error, open breaker, the organisation's cap). Absent when no
 * lookup was made (the organisation did not opt in, no provider is configured, no number): then
 * the component is absent too, and the score is the prefix evidence's as before.
 */
export type LiveLookupData =
  { state: 'answered'; fields: LookupFields; moment?: Moment; nowMs: number } | { state: 'unavailable' };

/** Moments at which a recent swap or port is what an account takeover looks like. */
const TAKEOVER_MOMENTS: ReadonlySet<Moment> = new Set(['authentication', 'profile_change']);

/** "A port in the last days": ported within this long of the request. */
export const RECENT_PORT_MS = 7 * DAY * 1000;

const CODES = {
  PHONE_SIM_SWAP_AT_TAKEOVER_MOMENT:
    'The SIM was swapped in the last 72 hours and the number is being used to authenticate or change a profile.',
  PHONE_PORTED_AT_TAKEOVER_MOMENT:
    'The number was ported in the last 7 days and is being used to authenticate or change a profile.',
  PHONE_SIM_SWAP_RECENT: 'The SIM was swapped in the last 72 hours.',
  PHONE_PORTED_RECENT: 'The number was ported to another network in the last 7 days.',
  PHONE_CALLS_FORWARDED: "The number's calls are unconditionally forwarded.",
  PHONE_NETWORK_VOIP: 'The network reports a VoIP line that is not tied to a fixed address.',
  PHONE_NETWORK_NOTHING_RECENT: 'The network reports no recent SIM swap, port or forwarding.',
  PHONE_NETWORK_NO_DATA: 'The lookup provider has no data for this number.',
} as const;
type Code = keyof typeof CODES;

/** The candidate version these points go into: network velocity's, scored together (docs/scoring.md). */
export const PHONE_LOOKUP_VERSION = '2026.12.4';

/**
 * A swap or port at a takeover moment is the attack itself: adverse, enough alone for `high`
 * under 2026.12.4's floors (the 20 of a velocity burst reaches `medium`). Elsewhere it is a
 * reason to look (elevated), as are forwarding and a non-fixed VoIP line.
 */
const POINTS: Partial<Record<Code, number>> = {
  PHONE_SIM_SWAP_AT_TAKEOVER_MOMENT: 45,
  PHONE_PORTED_AT_TAKEOVER_MOMENT: 35,
  PHONE_SIM_SWAP_RECENT: 20,
  PHONE_PORTED_RECENT: 15,
  PHONE_CALLS_FORWARDED: 15,
  PHONE_NETWORK_VOIP: 10,
  PHONE_NETWORK_NOTHING_RECENT: 0,
  PHONE_NETWORK_NO_DATA: 0,
};

/**
 * What the number's network says now, from a provider the operator licenses (Twilio Lookup v2 or
 * Telesign Phone ID), looked up on the request path for organisations that opted in. The only
 * outbound call of a score; no feed and no snapshot, so the refresher has nothing to build.
 */
export const phoneLiveLookup = defineCapability({
  key: 'phone_live_lookup',
  description:
    "What the number's network reports now (line type, a recent port or SIM swap, forwarding), from a live lookup the organisation opted into.",
  codes: CODES,
  tier: 'assess',
  kind: 'live',
  sources: {},
  subject: 'phone',
  // Answered per request: nothing ages. The registry leaves it out of refreshes (registry.ts).
  freshnessS: DAY,
  whenMissing: 'unavailable',
  format: 'Redis strings per number and field (keyed HMAC of the number), each with its own time to live.',
  replay: {
    verdicts: {
      PHONE_SIM_SWAP_AT_TAKEOVER_MOMENT: 'adverse',
      PHONE_PORTED_AT_TAKEOVER_MOMENT: 'adverse',
      PHONE_SIM_SWAP_RECENT: 'elevated',
      PHONE_PORTED_RECENT: 'elevated',
      PHONE_CALLS_FORWARDED: 'elevated',
      PHONE_NETWORK_VOIP: 'elevated',
      PHONE_NETWORK_NOTHING_RECENT: 'clean',
      PHONE_NETWORK_NO_DATA: 'no_match',
    },
  },
  finding: (evidence, data: LiveLookupData | undefined) => (evidence.phone ? liveFinding(data) : undefined),
  points: { [PHONE_LOOKUP_VERSION]: POINTS },
});

/** The strongest thing the lookup says, one code. */
export function liveFinding(data: LiveLookupData | undefined): CapabilityFinding<Code> | undefined {
  if (data === undefined) return undefined;
  if (data.state === 'unavailable') return { verdict: 'unavailable', detail: 'SOURCE_UNAVAILABLE' };
  const { fields, moment, nowMs } = data;
  const takeover = moment !== undefined && TAKEOVER_MOMENTS.has(moment);
  const swapped = fields.simSwap === 'within_24h' || fields.simSwap === 'within_72h';
  const port = fields.porting;
  const ported = !!port?.ported && port.atMs !== undefined && nowMs - port.atMs <= RECENT_PORT_MS;
  if (swapped && takeover) return { verdict: 'adverse', detail: 'PHONE_SIM_SWAP_AT_TAKEOVER_MOMENT' };
  if (ported && takeover) return { verdict: 'adverse', detail: 'PHONE_PORTED_AT_TAKEOVER_MOMENT' };
  if (swapped) return { verdict: 'elevated', detail: 'PHONE_SIM_SWAP_RECENT' };
  if (ported) return { verdict: 'elevated', detail: 'PHONE_PORTED_RECENT' };
  if (fields.forwarding === true) return { verdict: 'elevated', detail: 'PHONE_CALLS_FORWARDED' };
  const line = fields.lineType;
  if (line === 'non_fixed_voip' || line === 'voip')
    return { verdict: 'elevated', detail: 'PHONE_NETWORK_VOIP' };
  const known = [line, fields.simSwap, port, fields.forwarding].some((v) => v !== undefined && v !== null);
  return known
    ? { verdict: 'clean', detail: 'PHONE_NETWORK_NOTHING_RECENT' }
    : { verdict: 'no_match', detail: 'PHONE_NETWORK_NO_DATA' };
}
