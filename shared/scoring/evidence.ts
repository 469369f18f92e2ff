import { ndcLevel, type NdcRisk } from '../capabilities/feeds/ndc-feed.ts';
import type { ScoringSubject } from '../vocabulary/scoring-input.ts';
import type { CarrierPrefixes } from '../resolution/carrier-prefixes.ts';
import type { IpNetworks } from '../resolution/ip-networks.ts';
import { CAPABILITY_DEFINITIONS } from '../capabilities/index.ts';
import { applyCorrections, type Corrections } from '../capabilities/corrections.ts';
import { raisedFlags, withoutCorrectedServices } from '../capabilities/flags.ts';
import type { CapabilityData, Evidence, Reputation } from '../capabilities/evidence.ts';
import { addressKeyOf, resolveIp, type IpFacts } from '../resolution/ip.ts';
import { resolvePhone } from '../resolution/phone.ts';
import type { ComponentKey } from './reason-codes.ts';

/** The in-memory data evidence is gathered from; anything absent is not loaded on this node. */
export interface EvidenceSources {
  carriers?: CarrierPrefixes;
  networks?: IpNetworks;
  /** The network tables are older than their maximum data age: absence from them is no evidence. */
  networksStale?: boolean;
  ndcRisk?: NdcRisk;
  unavailable?: ReadonlySet<ComponentKey>;
  /** Components whose data is past its maximum data age (see Evidence.stale). */
  stale?: ReadonlySet<string>;
  data?: CapabilityData;
  /** Operator corrections: the last word on an address's flags, after every list. */
  corrections?: Corrections;
}

const NO_CARRIERS: CarrierPrefixes = {
  keys: new Float64Array(0),
  nameIndex: new Uint16Array(0),
  names: [],
  maxPrefixLength: 0,
};

/** Everything the engine needs, from in-memory data and the ledger lookup's answer. */
export function gatherEvidence(
  subject: ScoringSubject,
  sources: EvidenceSources,
  reputation?: Reputation,
): Evidence {
  const evidence: Evidence = {};
  if (subject.phone_number) {
    evidence.phone = resolvePhone(subject.phone_number, sources.carriers ?? NO_CARRIERS);
    const listed =
      sources.ndcRisk && evidence.phone.valid ? ndcLevel(sources.ndcRisk, evidence.phone.e164) : undefined;
    if (listed) evidence.ndcListed = listed;
  }
  if (subject.ip_address) {
    const ip = resolveIp(subject.ip_address, sources.networks, sources.networksStale === true);
    const listed = sources.data ? withListedFacts(ip, sources.data) : ip;
    evidence.ip = withoutCorrectedServices(applyCorrections(listed, sources.corrections));
  }
  if (reputation !== undefined) evidence.reputation = reputation;
  if (sources.unavailable && sources.unavailable.size > 0) evidence.unavailable = sources.unavailable;
  if (sources.stale && sources.stale.size > 0) evidence.stale = sources.stale;
  if (sources.data) evidence.data = sources.data;
  return evidence;
}

/** Capabilities that say something about an address from their own lists (their `ipFacts`). */
const IP_LISTS = CAPABILITY_DEFINITIONS.filter((c) => c.ipFacts !== undefined);

/**
 * The address's resolution with what each loaded capability's own data says about it (listed as
 * Tor, VPN, proxy, hosting, and the service a list names). Special-purpose space is never on a
 * list: it is no client on the internet. Unallocated space is still looked up, as the lists can
 * be newer than the registry tables.
 */
function withListedFacts(ip: IpFacts, data: CapabilityData): IpFacts {
  if (ip.range !== 'unicast' && ip.range !== 'unallocated') return ip;
  const key = addressKeyOf(ip.address);
  let out = ip;
  for (const cap of IP_LISTS) {
    const own = data[cap.key];
    if (own === undefined) continue;
    const found = raisedFlags(out, cap.ipFacts!(out, key, own as never));
    const services = found.services ? { ...out.services, ...found.services } : out.services;
    out = { ...out, ...found, ...(services ? { services } : {}) };
  }
  return out;
}
