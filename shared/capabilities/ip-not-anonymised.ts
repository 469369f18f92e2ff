/** The clean code the Tor and the VPN/proxy capabilities share: the address is neither. */
export const IP_NOT_ANONYMISED = {
  IP_NOT_ANONYMISED: 'The address is not a known Tor, VPN or proxy endpoint.',
} as const;

/**
 * What the same lists say instead when their data is past its maximum data age and does not name
 * the address: an old list still counts what it lists, but its silence is no reassurance (no
 * `clean` verdict, no IP_NOT_ANONYMISED benign exclusion).
 */
export const IP_ANONYMISER_LIST_STALE = {
  IP_ANONYMISER_LIST_STALE:
    'The list is past its maximum data age and does not name the address: no evidence either way.',
} as const;

/** The finding of a list that does not name the address: clean, unless the list is stale. */
export function unlistedFinding(stale: boolean) {
  return stale
    ? ({ verdict: 'no_match', detail: 'IP_ANONYMISER_LIST_STALE' } as const)
    : ({ verdict: 'clean', detail: 'IP_NOT_ANONYMISED' } as const);
}
