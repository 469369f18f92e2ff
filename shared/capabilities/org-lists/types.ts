/**
 * An organisation's own allow and deny entries: the shapes every part of the feature shares (the
 * store, the API route, the portal, the admin CLI, the node's index and the engine).
 */

/** What an entry names. The most specific kind that matches wins: address, then range, then AS. */
export const LIST_ENTRY_KINDS = ['phone', 'phone_prefix', 'ip', 'cidr', 'asn'] as const;
export type ListEntryKind = (typeof LIST_ENTRY_KINDS)[number];

/** `allow` caps the band at `low`; `deny` lifts it to at least `high`. */
export const LIST_EFFECTS = ['allow', 'deny'] as const;
export type ListEffect = (typeof LIST_EFFECTS)[number];

/** Most entries one organisation may hold. */
export const MAX_LIST_ENTRIES = 100_000;

/**
 * One entry as stored and served. `value` is canonical for its kind (parseListEntry): E.164
 * (`+447700900123`), a prefix of one (`+4477009`), an address as the scorer reads it, a CIDR
 * without host bits, `AS64500`. An entry is identified by kind and value (listEntryId): adding
 * one again replaces it.
 */
export interface ListEntry {
  kind: ListEntryKind;
  value: string;
  effect: ListEffect;
  reason: string;
  /** ISO 8601 UTC; past it the entry does nothing. */
  expires_at?: string;
  /** Who added it: `key:<key id>`, `user:<email>` or `operator:<name>`. */
  added_by: string;
  /** ISO 8601 UTC. */
  added_at: string;
}

/** What a caller sends for one entry: who and when are set by the service. */
export type ListEntryInput = Pick<ListEntry, 'kind' | 'value' | 'effect' | 'reason'> & {
  expires_at?: string | undefined;
};

/** A list change, as audited (ClickHouse `frs.list_changes`). */
export interface ListChange {
  change_id: string;
  org_id: string;
  /** `add` and `remove` name one entry; `replace` is a whole list (CSV) applied at once. */
  action: 'add' | 'remove' | 'replace';
  actor: string;
  at: string;
  /** The entries added or removed (for `replace`: the count of entries before and after). */
  entries: number;
  entries_before?: number;
  /** For add/remove: the entry's kind, value and effect. */
  kind?: ListEntryKind;
  value?: string;
  effect?: ListEffect;
  reason?: string;
}

/** The entry that decided a subject's band, as the engine applies it (never its value). */
export interface ListMatch {
  effect: ListEffect;
  kind: ListEntryKind;
}

/** An organisation's lists as one API node holds them. */
export interface OrgListsView {
  /** The most specific live entry for the subject, or undefined. */
  match(
    subject: { e164?: string | undefined; ip?: string | undefined; asn?: number | undefined },
    nowMs: number,
  ): ListMatch | undefined;
}

/** What the scorer asks the node for each request: the org's lists, and whether they are current. */
export interface OrgListsLookup {
  /** `lists` undefined: the organisation has none. `degraded`: the node could not load them. */
  forOrg(orgId: string): { lists: OrgListsView | undefined; degraded: boolean };
}
