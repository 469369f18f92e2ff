import type { Tier, Verdict } from '../vocabulary/score-terms.ts';
import type { Evidence } from './evidence.ts';
import type { Decoded } from '../resolution/codec.ts';
import type { AddressKey } from '../resolution/range-set.ts';
import type { IpFacts } from '../resolution/ip.ts';
import type { BuiltSnapshot, FeedFiles } from './snapshot-format.ts';
import type { FeedSource } from './source.ts';
import type { CorrectedFlag } from './corrections.ts';

/** How a snapshot capability's feeds become its blob in Redis, and the blob its data on a node. */
export interface SnapshotCodec<Data> {
  /** Refresher: parses and validates the fetched feeds (throws a FeedError on bad input). */
  build(files: FeedFiles): BuiltSnapshot;
  /** Node: the data of a blob already checked to be a snapshot of this format; `what` names it in errors. */
  decode(decoded: Decoded, what: string): Data;
}

/** What a capability finds about one subject: its verdict and the reason code that says why. */
export interface CapabilityFinding<Code extends string = string> {
  verdict: Verdict;
  /** One of its codes, or SOURCE_UNAVAILABLE when it was asked and could not answer. */
  detail: Code | 'SOURCE_UNAVAILABLE';
  /** Multiplies the code's points; only the reputation ledger counts more than one. */
  times?: number;
}

/**
 * Everything that makes one capability, in one object: its component key and description, the
 * reason codes it gives with their narratives, its registry entry (how it is refreshed and served)
 * and how it turns a subject's evidence into its finding. `shared/capabilities/index.ts` lists
 * them; the registries, the engine and the tiers read that list.
 */
export type CapabilityDefinition<
  Key extends string = string,
  Code extends string = string,
  Data = unknown,
> = CapabilityParts<Key, Code, Data> &
  // A snapshot capability carries its build and decode; the live ledger has none.
  ({ kind: 'snapshot'; snapshot: SnapshotCodec<Data> } | { kind: 'live'; snapshot?: undefined });

interface CapabilityParts<Key extends string, Code extends string, Data> {
  /** The component key: `components[].component`, `degraded_sources`, health and registry name. */
  key: Key;
  /** The component key's entry in the contract's `x-component-keys`. */
  description: string;
  /** The codes its findings give, with their narratives (`x-reason-codes`). */
  codes: Readonly<Record<Code, string>>;
  /** The lowest tier whose callers see the component. */
  tier: Tier;
  /**
   * Its sources by feed name (unique across capabilities): publisher, format, schedule, fewest
   * records, maximum data age and seed (source.ts). The refresher pulls them as often as the most
   * frequent one asks; its maximum data age is the smallest of theirs.
   */
  sources: Readonly<Record<string, FeedSource>>;
  /** Which subjects the capability evaluates; it is only named in `degraded_sources` for those. */
  subject: 'phone' | 'ip' | 'any';
  /** A snapshot not confirmed against its source for longer than this is stale: still used, but degraded. */
  freshnessS: number;
  /**
   * With no snapshot at all: `unavailable` makes the component's verdict unavailable; `degraded`
   * means the component still answers from what the code knows (libphonenumber's numbering plan,
   * line types), on less evidence.
   */
  whenMissing: 'unavailable' | 'degraded';
  /** Snapshot format, for operators reading Redis. */
  format: string;
  /**
   * Its finding for the subject, or undefined when the evidence has nothing for it to judge. It
   * reads the subject's resolution (`evidence.phone`, `evidence.ip`) and its own data as this node
   * decoded it (`snapshot.decode`; undefined when the node holds none), so a capability's lookup
   * lives in its folder.
   */
  finding(evidence: Evidence, data: Data | undefined): CapabilityFinding<Code> | undefined;
  /**
   * What its own data says about a routable address (listed as Tor, VPN, hosting...), merged into
   * the subject's resolution before any finding runs, so the response's `subject.ip_address` and
   * the other capabilities see it. Called only with its data loaded.
   */
  ipFacts?(ip: IpFacts, key: AddressKey, data: Data): Partial<IpFacts>;
  /**
   * The address flags its `ipFacts` sets (and an operator correction of them is reported under
   * its component). A service it names for the address goes in `services` under its key.
   */
  flags?: readonly CorrectedFlag[];
  /**
   * The finding a stored reason code of it stands for, given the ledger's report count: what a
   * replay of a retained score (scoring/replay.ts) scores. An audit row keeps the verdicts of the
   * components the caller's tier saw, but of the others only the codes that found risk, so the
   * verdict (which the gates read) and the count come back from here. Keyed by every code, so a new
   * code cannot be left out; `finding` must give each code with the verdict declared here
   * (scoring/replay.test.ts checks both ways).
   */
  replay: StoredFindings<Code>;
  /**
   * Consortium data (what many organisations' scores or reports say about a subject): consulted
   * only for callers whose tier or entitlements include the component, as the reputation ledger
   * is, so it never moves another tier's score, band or coverage. Other capabilities are
   * evaluated for every caller and only hidden from tiers below theirs.
   */
  consortium?: true;
  /**
   * Its codes' points in score versions, by version id: a version scores the points it was written
   * with (shared/scoring/weights.ts, frozen for released versions) plus every capability's
   * declaration for its id. A released version's hash covers its points, so a declaration for one
   * stops every process at start; new points go into a new candidate version.
   */
  points?: Readonly<Record<string, Readonly<Partial<Record<Code, number>>>>>;
  /**
   * New candidate score versions it brings: each is the version `from` (its points, rate caps,
   * gates and posture shift) plus every capability's `points` for the new id. `npm run calibrate`
   * writes its calibration and lock entry (generated); promotion goes through the backtest.
   */
  versions?: readonly CandidateVersion[];
}

/** A candidate score version a capability adds on top of an earlier one. */
export interface CandidateVersion {
  id: string;
  from: string;
  /** Why it exists, for the version list in docs/scoring.md. */
  description: string;
}

/** The verdict of each code, and for a code that counts more than once, how many times. */
export interface StoredFindings<Code extends string> {
  verdicts: Readonly<Record<Code, Verdict>>;
  /** The verdict and count of a code that depends on the ledger's report count. */
  byReports?: (code: Code, reports: number) => Pick<CapabilityFinding<Code>, 'verdict' | 'times'> | undefined;
}

/** The finding a stored code stands for under its capability's declaration. */
export function storedFinding<Code extends string>(
  replay: StoredFindings<Code>,
  code: Code,
  reports: number,
): CapabilityFinding<Code> {
  const counted = replay.byReports?.(code, reports);
  return counted ? { detail: code, ...counted } : { verdict: replay.verdicts[code], detail: code };
}

/** Checks a definition and keeps its key and codes as literal types, for the derived unions. */
export function defineCapability<const Key extends string, const Code extends string, Data = never>(
  def: CapabilityDefinition<Key, Code, Data>,
): CapabilityDefinition<Key, Code, Data> {
  return def;
}

export const HOUR = 3600;
export const DAY = 24 * HOUR;
