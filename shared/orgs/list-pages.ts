/**
 * An organisation's list a page at a time, as `GET /v1/lists` and the portal's Lists page show it:
 * ordered as the store lists it (kind as LIST_ENTRY_KINDS names them, then value), filtered by
 * kind and effect, each page ending with a cursor the next one starts after.
 */
import {
  LIST_ENTRY_KINDS,
  type ListEffect,
  type ListEntry,
  type ListEntryKind,
} from '../capabilities/org-lists/types.ts';
import type { OrgListStore } from './lists-store.ts';

export interface ListPageQuery {
  kind?: ListEntryKind | undefined;
  effect?: ListEffect | undefined;
  /** `next_cursor` of the previous page. */
  cursor?: string | undefined;
  limit: number;
}

export interface ListPage {
  entries: ListEntry[];
  /** Entries matching the filter, on every page. */
  total: number;
  /** Absent on the last page. */
  next_cursor?: string;
}

/**
 * An entry's place in that order as one string: the kind's index is one digit, so the strings
 * compare as the (kind, value) pairs do.
 */
const orderKey = (e: Pick<ListEntry, 'kind' | 'value'>) => `${LIST_ENTRY_KINDS.indexOf(e.kind)}:${e.value}`;

/** The index of the first entry that comes after `key` (binary search over the sorted entries). */
function firstAfter(entries: readonly ListEntry[], key: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (orderKey(entries[mid]!) <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * One page of the entries (sorted as the store lists them) that match the query. A cursor is
 * the order key of the page's last entry, base64url: any cursor is a position, so an entry
 * removed in between does not lose the reader's place, and a forged one shows a page, no more.
 */
export function listPage(sorted: readonly ListEntry[], q: ListPageQuery): ListPage {
  const matching =
    q.kind || q.effect
      ? sorted.filter((e) => (!q.kind || e.kind === q.kind) && (!q.effect || e.effect === q.effect))
      : sorted;
  const start =
    q.cursor === undefined ? 0 : firstAfter(matching, Buffer.from(q.cursor, 'base64url').toString('utf8'));
  const entries = matching.slice(start, start + q.limit);
  const last = entries.at(-1);
  const more = last !== undefined && start + q.limit < matching.length;
  return {
    entries,
    total: matching.length,
    ...(more ? { next_cursor: Buffer.from(orderKey(last)).toString('base64url') } : {}),
  };
}

/** Organisations whose sorted entries a process keeps between page requests. */
const CACHED_ORGS = 8;

/**
 * The entries of an organisation sorted, kept per organisation at the version they were read at:
 * paging through 100,000 entries costs a version read per page, not a load of the whole list. A
 * change between the version read and the load leaves newer entries under the older version,
 * which the next page's version read replaces.
 */
export class SortedEntries {
  private readonly cache = new Map<string, { version: number; entries: ListEntry[] }>();
  private readonly store: Pick<OrgListStore, 'list' | 'version'>;

  constructor(store: Pick<OrgListStore, 'list' | 'version'>) {
    this.store = store;
  }

  async of(orgId: string): Promise<ListEntry[]> {
    const version = await this.store.version(orgId);
    const cached = this.cache.get(orgId);
    if (cached?.version === version) return cached.entries;
    const entries = await this.store.list(orgId);
    this.cache.delete(orgId);
    this.cache.set(orgId, { version, entries });
    if (this.cache.size > CACHED_ORGS) this.cache.delete(this.cache.keys().next().value!);
    return entries;
  }
}
