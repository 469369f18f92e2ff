/**
 * Benign exclusions: facts the engine checked that argue against fraud. They explain why an
 * otherwise notable attribute was not held against the subject; they never change the score.
 * Published as the contract's `x-benign-exclusions` registry.
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
