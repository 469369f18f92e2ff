/**
 * The schemas of `/v1/lists`: an organisation's own allow and deny entries. zod checks the shape;
 * the rules of each kind (E.164, prefixes, addresses, CIDRs without host bits, AS numbers), the
 * reason's text and the expiry are parseListEntry's (shared/capabilities/org-lists/entry.ts), the
 * one check every writer (API, portal, admin CLI, CSV) goes through.
 */
import { z } from 'zod';
import { MAX_LIST_REASON } from '../capabilities/org-lists/entry.ts';
import { LIST_EFFECTS, LIST_ENTRY_KINDS, MAX_LIST_ENTRIES } from '../capabilities/org-lists/types.ts';
import { storableText } from './storable-text.ts';

/** Most entries one call adds or removes; a bigger change is a CSV replace. */
export const MAX_LIST_ENTRIES_PER_CALL = 1_000;
/** The largest body of `POST /v1/lists/entries` and `/v1/lists/entries/remove`. */
export const MAX_LIST_JSON_BYTES = 1 << 20;
/** The largest CSV of `PUT /v1/lists`. */
export const MAX_LIST_CSV_BYTES = 10 << 20;
/** Entries per page of `GET /v1/lists`: the default and the most. */
export const LIST_PAGE_DEFAULT = 100;
export const LIST_PAGE_MAX = 1_000;

const Kind = z.enum(LIST_ENTRY_KINDS).meta({
  description:
    '`phone` (E.164), `phone_prefix` (`+` and 1-14 digits), `ip` (IPv4 or IPv6), `cidr` (without host bits), `asn` (`AS64500`).',
});
const Effect = z
  .enum(LIST_EFFECTS)
  .meta({ description: '`allow` caps the band at `low`; `deny` lifts it to at least `high`.' });
const Value = z.string().min(1).max(64).meta({
  description:
    'Stored in canonical form: an IPv4-mapped IPv6 address as its IPv4, IPv6 compressed, `as64500` as `AS64500`.',
});
const Reason = storableText({ min: 1, max: MAX_LIST_REASON }).meta({
  description: `Why: 1 to ${MAX_LIST_REASON} characters, not only spaces. Never shown in a score.`,
});
const ExpiresAt = z.string().max(40).meta({
  description:
    'ISO 8601 with its offset, in the future. Past it the entry does nothing; absent: it never expires.',
});

export const ListEntryInput = z
  .object({ kind: Kind, value: Value, effect: Effect, reason: Reason, expires_at: ExpiresAt.optional() })
  .strict()
  .meta({ id: 'ListEntryInput', description: 'One entry as a caller writes it.' });

export const ListEntry = z
  .object({
    kind: Kind,
    value: Value,
    effect: Effect,
    reason: Reason,
    expires_at: ExpiresAt.optional(),
    added_by: z
      .string()
      .meta({ description: 'Who added it: `key:<key id>`, `user:<email>` (portal) or `operator:<name>`.' }),
    added_at: z.string().meta({ description: 'When, ISO 8601 UTC.' }),
  })
  .meta({ id: 'ListEntry', description: 'One entry of the organisation, as stored.' });

export const AddListEntriesRequest = z
  .object({ entries: z.array(ListEntryInput).min(1).max(MAX_LIST_ENTRIES_PER_CALL) })
  .strict()
  .meta({
    id: 'AddListEntriesRequest',
    description: `Entries to add; one with the kind and value of an entry already held replaces it. At most ${MAX_LIST_ENTRIES_PER_CALL} per call, ${MAX_LIST_ENTRIES.toLocaleString('en')} in the list.`,
  });

export const ListEntryRef = z
  .object({ kind: Kind, value: Value })
  .strict()
  .meta({ id: 'ListEntryRef', description: 'An entry named by its kind and value.' });

export const RemoveListEntriesRequest = z
  .object({ entries: z.array(ListEntryRef).min(1).max(MAX_LIST_ENTRIES_PER_CALL) })
  .strict()
  .meta({
    id: 'RemoveListEntriesRequest',
    description: `Entries to remove (at most ${MAX_LIST_ENTRIES_PER_CALL}); one the list does not hold is not an error.`,
  });

const Version = z
  .number()
  .int()
  .min(0)
  .meta({ description: "The list's version after the change; every change raises it." });

export const ListEntriesAdded = z
  .object({
    added: z.number().int().min(1).meta({ description: 'Entries written (new or replaced).' }),
    version: Version,
  })
  .meta({ id: 'ListEntriesAdded' });

export const ListEntriesRemoved = z
  .object({
    removed: z.number().int().min(0).meta({ description: 'Entries the list held and no longer does.' }),
    version: Version,
  })
  .meta({ id: 'ListEntriesRemoved' });

export const ListReplaced = z
  .object({
    before: z.number().int().min(0).meta({ description: 'Entries the list held before.' }),
    after: z.number().int().min(0).meta({ description: 'Entries it holds now: the lines of the CSV.' }),
    version: Version,
  })
  .meta({ id: 'ListReplaced' });

export const ListEntriesPage = z
  .object({
    entries: z.array(ListEntry),
    total: z.number().int().min(0).meta({ description: 'Entries matching the filter, on every page.' }),
    next_cursor: z
      .string()
      .optional()
      .meta({ description: 'Pass as `cursor` for the next page; absent on the last one.' }),
  })
  .meta({
    id: 'ListEntriesPage',
    description: 'A page of entries, ordered by kind (as listed in `kind`) then value.',
  });

/** A cursor is where the last page ended, base64url: opaque, and safe in a query. */
const CURSOR = /^[A-Za-z0-9_-]{1,200}$/;

export const ListEntriesQuery = z
  .object({
    kind: Kind.optional(),
    effect: Effect.optional(),
    cursor: z
      .string()
      .regex(CURSOR)
      .optional()
      .meta({ description: '`next_cursor` of the previous page; absent for the first.' }),
    limit: z
      .string()
      .regex(/^(?:[1-9]\d{0,2}|1000)$/, `must be a whole number from 1 to ${LIST_PAGE_MAX}`)
      .optional()
      .meta({ description: `Entries per page, 1 to ${LIST_PAGE_MAX}; ${LIST_PAGE_DEFAULT} unless given.` }),
  })
  .strict();

export type ListEntriesQuery = z.output<typeof ListEntriesQuery>;
