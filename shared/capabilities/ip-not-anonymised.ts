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

/** The verdicts of the two codes above, for replay (definition.ts `replay`). */
export const UNLISTED_VERDICTS = {
  IP_NOT_ANONYMISED: 'clean',
  IP_ANONYMISER_LIST_STALE: 'no_match',
} as const;

/** The finding of a list that does not name the address: clean, unless the list is stale. */
export function unlistedFinding(stale: boolean) {
  return stale
    ? ({ verdict: 'no_match', detail: 'IP_ANONYMISER_LIST_STALE' } as const)
    : ({ verdict: 'clean', detail: 'IP_NOT_ANONYMISED' } as const);
}

/**
 * An egress address of a privacy relay that ordinary customers use by default (iCloud Private
 * Relay): named, never scored as an anonymiser or as a data centre. The VPN/proxy and the
 * network-type capabilities share the code.
 */
export const IP_PRIVACY_RELAY = {
  IP_PRIVACY_RELAY:
    'The address is an egress of a privacy relay that ordinary customers use (iCloud Private Relay): not an anonymiser.',
} as const;
