/**
 * Which capability owns each address flag (its definition's `flags`): an operator correction of a
 * flag is reported under that capability's component, and the service it named for the address
 * goes when the correction clears its flags. Derived from the declarations, never listed here.
 */
import type { IpFacts } from '../resolution/ip.ts';
import type { CorrectedFlag } from './corrections.ts';
import { CAPABILITY_DEFINITIONS, type CapabilityDefinitions } from './index.ts';

type ComponentKey = CapabilityDefinitions['key'];

export const COMPONENT_OF_FLAG: ReadonlyMap<CorrectedFlag, ComponentKey> = new Map(
  CAPABILITY_DEFINITIONS.flatMap((d) =>
    (d.flags ?? []).map((f): [CorrectedFlag, ComponentKey] => [f, d.key]),
  ),
);

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
