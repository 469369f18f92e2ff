/**
 * The parts of a score the engine produces, in the shapes the response publishes them
 * (contract/response.ts `Component`, `SubjectResolution`). Declared here, below the contract, so
 * the engine does not import the schemas that describe its output; the response is built from
 * these values (contract/shape.ts), which is where the compiler holds the two shapes together.
 */
import type { Verdict } from '../vocabulary/score-terms.ts';

/** One capability's component of a score. */
export interface ComponentResult {
  component: string;
  verdict: Verdict;
  /** Raw-risk points it contributed. */
  contribution: number;
  /** Its reason code. */
  detail?: string | undefined;
}

/** What the subject resolved to: network assets only, never subscriber identity. */
export interface ResolvedSubject {
  phone_number?: {
    e164?: string;
    valid?: boolean;
    country_code?: string;
    ndc?: string;
    operator?: string;
    line_type?: string;
    allocated?: boolean;
  };
  ip_address?: {
    asn?: string;
    as_name?: string;
    as_type?: string;
    country_code?: string;
    continent?: string;
    hosting?: boolean;
    vpn?: boolean;
    proxy?: boolean;
    tor?: boolean;
    bogon?: boolean;
  };
}
