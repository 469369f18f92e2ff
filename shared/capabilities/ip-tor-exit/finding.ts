/**
 * The Tor exit capability's finding: a listed exit is adverse; an address in Tor-operator space
 * (operator-space.ts) is elevated, below a listed exit; otherwise the list vouches for the address
 * (`clean`) only while its data is within its maximum age.
 */
import type { IpNetworks } from '../../resolution/ip-networks.ts';
import { addressKeyOf } from '../../resolution/ip.ts';
import type { Evidence } from '../evidence.ts';
import { correctedAway } from '../corrections.ts';
import type { CapabilityFinding } from '../definition.ts';
import { unlistedFinding } from '../ip-not-anonymised.ts';
import type { RangeSet } from '../../resolution/range-set.ts';
import { currentOperatorSpace, inOperatorSpace } from './operator-space.ts';

export const TOR_EXIT_CODES = {
  IP_TOR_EXIT: 'The address is a Tor exit node.',
  IP_TOR_OPERATOR_NETWORK:
    'The address is not on the Tor exit list but in a network the list shows to be run for Tor exits.',
} as const;

type TorFindingCode =
  keyof typeof TOR_EXIT_CODES | 'IP_NOT_ANONYMISED' | 'IP_ANONYMISER_LIST_STALE' | 'IP_OPERATOR_CORRECTED';

/** The routing table the network-type capability holds on this node, for the AS rule. */
function networksOf(evidence: Evidence): IpNetworks | undefined {
  return (evidence.data?.ip_network_type as { networks?: IpNetworks } | undefined)?.networks;
}

export function torExitFinding(
  evidence: Evidence,
  exits: RangeSet | undefined,
): CapabilityFinding<TorFindingCode> | undefined {
  const { ip } = evidence;
  if (!ip) return undefined;
  // An operator's correction (not_tor) outranks the list and the operator-space rule alike.
  if (correctedAway(ip, 'tor')) return { verdict: 'clean', detail: 'IP_OPERATOR_CORRECTED' };
  if (ip.tor) return { verdict: 'adverse', detail: 'IP_TOR_EXIT' };
  if (exits && !ip.bogon) {
    const space = currentOperatorSpace(exits, networksOf(evidence));
    const asn = ip.asn === undefined ? undefined : Number(ip.asn.slice(2));
    // What the list shows still counts when it is stale, like the exits it lists.
    if (inOperatorSpace(space, addressKeyOf(ip.address), asn))
      return { verdict: 'elevated', detail: 'IP_TOR_OPERATOR_NETWORK' };
  }
  return unlistedFinding(evidence.stale?.has('ip_tor_exit') === true);
}
