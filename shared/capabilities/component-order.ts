import { CAPABILITY_DEFINITIONS, type CapabilityDefinitions } from './index.ts';

const SUBJECT_ORDER = { phone: 0, ip: 1, any: 2 } as const;

/**
 * The order of components in a response: the number's, then the address's, then the subject's,
 * each in registry order (the order responses have always had; the registry's own order is
 * health's and `x-component-keys`').
 */
export const COMPONENT_ORDER: readonly CapabilityDefinitions[] = [...CAPABILITY_DEFINITIONS].sort(
  (a, b) => SUBJECT_ORDER[a.subject] - SUBJECT_ORDER[b.subject],
);
