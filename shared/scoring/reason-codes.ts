/**
 * The registries the contract publishes (OpenAPI `x-component-keys`, `x-reason-codes`,
 * `x-benign-exclusions`). Component keys and reason codes come from the capabilities
 * (shared/capabilities/index.ts); benign exclusions are the engine's own. Nothing else may
 * invent one.
 */
import { COMPONENT_ORDER } from '../capabilities/component-order.ts';
import { CAPABILITY_DEFINITIONS, type CapabilityDefinitions } from '../capabilities/index.ts';

type CodesOf<D> = D extends { codes: infer C } ? keyof C & string : never;

/** Component keys: the values of `components[].component`, `degraded_sources` and health capabilities. */
export type ComponentKey = CapabilityDefinitions['key'];

export const COMPONENT_KEYS = Object.fromEntries(
  CAPABILITY_DEFINITIONS.map((c) => [c.key, c.description]),
) as Readonly<Record<ComponentKey, string>>;

/** Reason codes: the values of `components[].detail` and `primary_risk_factor.code`. */
export type ReasonCode = CodesOf<CapabilityDefinitions> | 'SOURCE_UNAVAILABLE';

/**
 * The codes of the capabilities in response order. A code several capabilities share (the clean
 * IP_NOT_ANONYMISED) is listed once, after the last of them; SOURCE_UNAVAILABLE, which any
 * component gives when its capability cannot answer, comes last.
 */
function reasonCodes(): Readonly<Record<ReasonCode, string>> {
  const out = new Map<string, string>();
  for (const c of COMPONENT_ORDER) {
    for (const [code, narrative] of Object.entries<string>(c.codes)) {
      const known = out.get(code);
      if (known !== undefined && known !== narrative)
        throw new Error(`reason code ${code} has two narratives (${c.key})`);
      out.delete(code);
      out.set(code, narrative);
    }
  }
  out.set(
    'SOURCE_UNAVAILABLE',
    'The capability could not answer in time; the component contributes nothing.',
  );
  return Object.fromEntries(out) as Record<ReasonCode, string>;
}

export const REASON_CODES = reasonCodes();

/**
 * Benign exclusions: facts the engine checked that argue against fraud. They explain why an
 * otherwise notable attribute was not held against the subject; they never change the score.
 */
export const BENIGN_EXCLUSIONS = {
  MOBILE_IN_OPERATING_COUNTRY:
    "The number is an allocated mobile number of one of the context's operating countries.",
  FIXED_LINE_IN_OPERATING_COUNTRY:
    "The number is an allocated fixed-line number of one of the context's operating countries.",
  ACCESS_IP_IN_EXPECTED_GEOGRAPHY:
    'The address is on an access (non-hosting) network in an operating country or expected corridor.',
  SUBJECT_IN_DIASPORA_CORRIDOR:
    "The subject's country is one of the context's diaspora corridors, where cross-border use is expected.",
  IP_NOT_ANONYMISED: 'The address is not a known Tor exit, VPN or proxy endpoint.',
  IP_PRIVACY_RELAY:
    'The address is an egress of iCloud Private Relay, which ordinary Apple customers use: a relay, not an anonymiser.',
  IP_CARRIER_NAT:
    "The address is on a mobile operator's network, shared by many subscribers behind carrier NAT: not an anonymiser.",
} as const;

export type BenignExclusion = keyof typeof BENIGN_EXCLUSIONS;
