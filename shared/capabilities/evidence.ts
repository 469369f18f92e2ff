/**
 * What a capability's finding reads: the subject's resolution and each capability's decoded data,
 * gathered before scoring (scoring/evidence.ts gathers it; the engine itself does no I/O).
 */
import type { IpFacts } from '../resolution/ip.ts';
import type { PhoneFacts } from '../resolution/phone.ts';
import type { NdcLevel } from './feeds/ndc-feed.ts';

/**
 * Reports in the reputation ledger as the caller sees them (feed and outcomes together;
 * `outcomeReports` of them are organisations whose votes count for the caller, `ownReport` whether
 * the caller's own is one), or `unavailable` when the live lookup could not answer. The ledger's
 * ceiling (scoring/engine.ts bandOf) counts `outcomeReports`, never the feed's reports; absent, as
 * in calibration draws, every report counts as an organisation's.
 */
export type Reputation = { reports: number; outcomeReports?: number; ownReport?: boolean } | 'unavailable';

/** Evidence gathered for one subject before scoring; the engine itself does no I/O. */
export interface Evidence {
  phone?: PhoneFacts;
  /** The level the numbering-range risk feed gives the number's range, if it lists it. */
  ndcListed?: NdcLevel;
  ip?: IpFacts;
  /** Absent when the ledger was not consulted (the caller's tier does not include it). */
  reputation?: Reputation;
  /**
   * Components whose data is missing altogether: verdict unavailable, no contribution. Keyed by
   * plain strings, as `stale` is: the component keys are derived from the capabilities that read
   * this type.
   */
  unavailable?: ReadonlySet<string>;
  /**
   * Components whose data is older than its maximum data age: what it lists still counts, but a
   * list that does not name the subject is no reassurance (no `clean` verdict from it). Keyed by
   * plain strings: the findings that read it are what the component keys are derived from.
   */
  stale?: ReadonlySet<string>;
  /** Each capability's data as this node decoded it, by component key: what its finding reads. */
  data?: CapabilityData;
}

/** Decoded snapshot data by component key (absent: not loaded on this node). */
export type CapabilityData = Readonly<Partial<Record<string, unknown>>>;
