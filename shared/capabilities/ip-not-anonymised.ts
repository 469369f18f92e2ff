/** The clean code the Tor and the VPN/proxy capabilities share: the address is neither. */
export const IP_NOT_ANONYMISED = {
  IP_NOT_ANONYMISED: 'The address is not a known Tor, VPN or proxy endpoint.',
} as const;

/**
 * An egress address of a privacy relay that ordinary customers use by default (iCloud Private
 * Relay): named, never scored as an anonymiser or as a data centre. The VPN/proxy and the
 * network-type capabilities share the code.
 */
export const IP_PRIVACY_RELAY = {
  IP_PRIVACY_RELAY:
    'The address is an egress of a privacy relay that ordinary customers use (iCloud Private Relay): not an anonymiser.',
} as const;
