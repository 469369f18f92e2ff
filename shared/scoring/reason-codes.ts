/**
 * The registries the contract publishes (OpenAPI `x-component-keys`, `x-reason-codes`,
 * `x-benign-exclusions`). Component keys and reason codes come from the capabilities
 * (shared/capabilities/index.ts); benign exclusions are the engine's own
 * (vocabulary/benign-exclusions.ts). Nothing else may invent one.
 */
import { COMPONENT_ORDER } from '../capabilities/component-order.ts';
import { CAPABILITY_DEFINITIONS, type CapabilityDefinitions } from '../capabilities/index.ts';

type CodesOf<D> = D extends { codes: infer C } ? keyof C & string : never;

/** Component keys: the values of `components[].component`, `degraded_sources` and health capabilities. */
export type ComponentKey = CapabilityDefinitions['key'];

export const COMPONENT_KEYS = Object.fromEntries(
  CAPABILITY_DEFINITIONS.map((c) => [c.key, c.description]),
) as Readonly<Record<ComponentKey, string>>;

/** Reason codes: the values of `components[].detail` and `primary_risk_factor.code`. */
export type ReasonCode = CodesOf<CapabilityDefinitions> | 'SOURCE_UNAVAILABLE';

/**
 * The codes of the capabilities in response order. A code several capabilities share (the clean
 * IP_NOT_ANONYMISED) is listed once, after the last of them; SOURCE_UNAVAILABLE, which any
 * component gives when its capability cannot answer, comes last.
 */
function reasonCodes(): Readonly<Record<ReasonCode, string>> {
  const out = new Map<string, string>();
  for (const c of COMPONENT_ORDER) {
    for (const [code, narrative] of Object.entries<string>(c.codes)) {
      const known = out.get(code);
      if (known !== undefined && known !== narrative)
        throw new Error(`reason code ${code} has two narratives (${c.key})`);
      out.delete(code);
      out.set(code, narrative);
    }
  }
  out.set(
    'SOURCE_UNAVAILABLE',
    'The capability could not answer in time; the component contributes nothing.',
  );
  return Object.fromEntries(out) as Record<ReasonCode, string>;
}

export const REASON_CODES = reasonCodes();
