/**
 * Every capability, one line each: its folder holds the whole of it (shared/capabilities/definition.ts).
 * The order is the registry's: health, `x-component-keys` and the refresher list them so.
 */
import { callerIdIntegrity } from './caller-id-integrity/index.ts';
import { ipNetworkType } from './ip-network-type/index.ts';
import { ipTorExit } from './ip-tor-exit/index.ts';
import { ipVpnProxy } from './ip-vpn-proxy/index.ts';
import { ndcRangeRisk } from './ndc-range-risk/index.ts';
import { networkVelocity } from './network-velocity/index.ts';
import { orgLists } from './org-lists/index.ts';
import { phoneLiveLookup } from './phone-live-lookup/index.ts';
import { reputationLedger } from './reputation-ledger/index.ts';

export const CAPABILITY_DEFINITIONS = [
  callerIdIntegrity,
  ndcRangeRisk,
  reputationLedger,
  ipNetworkType,
  ipTorExit,
  ipVpnProxy,
  networkVelocity,
  phoneLiveLookup,
  orgLists,
] as const;

export type CapabilityDefinitions = (typeof CAPABILITY_DEFINITIONS)[number];
