/** The clean code the Tor and the VPN/proxy capabilities share: the address is neither. */
export const IP_NOT_ANONYMISED = {
  IP_NOT_ANONYMISED: 'The address is not a known Tor, VPN or proxy endpoint.',
} as const;
