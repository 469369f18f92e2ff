/**
 * Which autonomous systems of a broad third-party AS list may have their whole address space
 * flagged. A list never overrides what the network itself is (as-type.ts with the curated
 * asn-overrides.csv):
 * - a data-centre list flags an AS as hosting only when the AS's own type is `hosting`, or
 *   `unknown` (nothing says otherwise): a university, a city, a bank or an access network the
 *   list names (an out-of-date entry, a reassigned AS) keeps its type and is not hosting;
 * - a VPN-provider list flags a whole AS as VPN only when the network exists to run VPNs (the
 *   provider's own). A hosting company that VPN providers rent servers from (M247, Datacamp /
 *   CDN77: known by their hosting brand) is hosting; its published VPN servers are still VPN
 *   through the providers' server lists.
 */
import { classifyAsWithOperator, isHostingBrand } from '../../../resolution/as-type.ts';

/** Why an AS of the list is left out, or undefined to keep it. */
export function asListExclusion(
  target: 'hosting' | 'vpnProxy',
  asn: number,
  name: string | undefined,
): string | undefined {
  const { type, operator } = classifyAsWithOperator(asn, name);
  if (target === 'hosting') return type === 'hosting' || type === 'unknown' ? undefined : type;
  return type === 'hosting' && operator !== undefined && isHostingBrand(operator)
    ? `hosting company ${operator}`
    : undefined;
}
