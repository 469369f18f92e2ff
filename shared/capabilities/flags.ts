/**
 * Which capabilities set each address flag (their definitions' `flags`): an operator correction of
 * a flag is reported under each of their components, and the service one named for the address
 * goes when the correction clears its flags. Derived from the declarations, never listed here.
 * Several lists may set one flag (a second proxy list beside the VPN/proxy feed); a list raises a
 * flag, never lowers what another set (`raisedFlags`); only an operator correction lowers one.
 */
import type { IpFacts } from '../resolution/ip.ts';
import { CORRECTED_FLAGS, type CorrectedFlag } from './corrections.ts';
import { CAPABILITY_DEFINITIONS, type CapabilityDefinitions } from './index.ts';

type ComponentKey = CapabilityDefinitions['key'];

export const COMPONENTS_OF_FLAG: ReadonlyMap<CorrectedFlag, readonly ComponentKey[]> = new Map(
  CORRECTED_FLAGS.map((f) => [
    f,
    CAPABILITY_DEFINITIONS.filter((d) => d.flags?.includes(f)).map((d) => d.key),
  ]),
);

/**
 * What a list's `ipFacts` found, merged into the address: its flags can only raise the address's
 * (`true` wins), so a list that does not name the address cannot clear what another list set.
 */
export function raisedFlags(ip: IpFacts, found: Partial<IpFacts>): Partial<IpFacts> {
  const out: Partial<IpFacts> = { ...found };
  for (const f of CORRECTED_FLAGS) if (f in found) out[f] = ip[f] || found[f] === true;
  return out;
}

/** The address without the services of capabilities whose flags an operator corrected away. */
export function withoutCorrectedServices(ip: IpFacts): IpFacts {
  if (!ip.corrected || !ip.services) return ip;
  const services = { ...ip.services };
  for (const d of CAPABILITY_DEFINITIONS) {
    const flags = d.flags ?? [];
    if (flags.some((f) => ip.corrected!.includes(f)) && flags.every((f) => !ip[f])) delete services[d.key];
  }
  const { services: _, ...rest } = ip;
  return Object.keys(services).length > 0 ? { ...rest, services } : rest;
}
