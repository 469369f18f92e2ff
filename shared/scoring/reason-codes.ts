/**
 * The registries the contract publishes (OpenAPI `x-component-keys`, `x-reason-codes`,
 * `x-benign-exclusions`). Add keys and codes here only; nothing else may invent one.
 */

/** Component keys: the values of `components[].component`, `degraded_sources` and health capabilities. */
export const COMPONENT_KEYS = {
  caller_id_integrity: 'Whether the caller ID can exist: an allocated range of the numbering plan.',
  ndc_range_risk: 'Risk of the range type of the number (VoIP, premium rate, personal numbers...).',
  reputation_ledger: 'Fraud reports about the subject in the reputation ledger.',
  ip_network_type: 'Kind of network the address sits on: access, hosting, or reserved space.',
  ip_tor_exit: 'Whether the address is a Tor exit node.',
  ip_vpn_proxy: 'Whether the address is a known VPN or proxy endpoint.',
} as const;

export type ComponentKey = keyof typeof COMPONENT_KEYS;

/** Reason codes: the values of `components[].detail` and `primary_risk_factor.code`. */
export const REASON_CODES = {
  CLI_IMPOSSIBLE: 'The caller ID cannot exist: its length or range is not allocated by the numbering plan.',
  CLI_UNATTESTED:
    'The caller ID resolves to no numbering range (for example a national trunk zero after the country code).',
  CLI_VALID: 'The caller ID is in an allocated range of the numbering plan.',
  NDC_RANGE_ELEVATED:
    'The number is in a range type often used for fraud (VoIP, premium rate, shared cost, personal numbers).',
  NDC_RANGE_ORDINARY: 'The number is in an ordinary mobile or fixed-line range.',
  NDC_RANGE_UNKNOWN: 'The number resolves to no range, so its range risk cannot be assessed.',
  IP_BOGON:
    'The address is in reserved or special-purpose space and cannot be a real client on the internet.',
  IP_HOSTING: 'The address belongs to a hosting or data-centre network, not an access network.',
  IP_ACCESS_NETWORK: 'The address belongs to an access (residential, mobile or business) network.',
  IP_NETWORK_UNKNOWN: 'The network of the address is not classified.',
  IP_TOR_EXIT: 'The address is a Tor exit node.',
  IP_VPN_PROXY: 'The address is a known VPN or proxy endpoint.',
  IP_NOT_ANONYMISED: 'The address is not a known Tor, VPN or proxy endpoint.',
  REPUTATION_REPORTED: 'The subject has fraud reports in the reputation ledger.',
  REPUTATION_NO_REPORTS: 'The subject has no fraud reports in the reputation ledger.',
  SOURCE_UNAVAILABLE: 'The capability could not answer in time; the component contributes nothing.',
} as const;

export type ReasonCode = keyof typeof REASON_CODES;

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
} as const;

export type BenignExclusion = keyof typeof BENIGN_EXCLUSIONS;
