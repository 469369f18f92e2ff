/**
 * The registry of reason codes: the values of `components[].detail` and
 * `primary_risk_factor.code`. Published in the OpenAPI document; add codes here only.
 */
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
