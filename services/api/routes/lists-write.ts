import { parseListCsvCooperative } from '../../../shared/capabilities/org-lists/csv.ts';
import { ListEntryError, listEntryId, parseListEntry } from '../../../shared/capabilities/org-lists/entry.ts';
import { ApiError, type ErrorItem } from '../../../shared/contract/errors.ts';
import {
  AddListEntriesRequest,
  ListEntriesAdded,
  ListEntriesRemoved,
  ListReplaced,
  MAX_LIST_CSV_BYTES,
  MAX_LIST_ENTRIES_PER_CALL,
  MAX_LIST_JSON_BYTES,
  RemoveListEntriesRequest,
} from '../../../shared/contract/lists.ts';
import { JSON_BODY_REFUSALS } from '../../../shared/contract/openapi-responses.ts';
import { json } from '../../../shared/contract/operation.ts';
import { capErrors } from '../../../shared/contract/validation.ts';
import { defineRoute } from '../http/route.ts';
import { actorOf, admitChange, type ListsRouteDeps } from './lists.ts';

/** The refusals of a list change: those of every JSON operation, with the lists' own 422. */
const CHANGE_REFUSALS = [
  ...JSON_BODY_REFUSALS.filter((r) => r !== 'ValidationFailed'),
  'ListValidationFailed',
] as const;

const IDEMPOTENCY =
  'Per organisation, kept 24 hours, separate from the keys of scoring and outcomes. Same key and body: the first ' +
  '200 is replayed with `Idempotent-Replayed: true`. Same key, other body: 409. Empty, over 128 characters or ' +
  'not visible ASCII (0x21-0x7E): 422.';

const ORDER =
  "Every tier; never billed, never a scoring slot. Order of checks: authenticate, validate (422, every entry by its kind's " +
  "rules; nothing changes), rate limit (the tier's rate in a window of the list operations' own), idempotency, change. " +
  'Every change is audited (who: the calling key; when; what) and reaches every API node within 5 s.';

const invalid = (field: string, message: string): ErrorItem => ({
  code: 'E_INVALID_LIST_ENTRY',
  message: `${field}: ${message}`,
  field,
});

/**
 * Each item through `read` (parseListEntry's rules), refused all together: one 422 naming every
 * bad item (up to the contract's cap) and any item naming the same entry as an earlier one.
 */
function checkedEach<T>(items: readonly unknown[], read: (item: unknown) => T, idOf: (t: T) => string): T[] {
  const errors: ErrorItem[] = [];
  const seen = new Map<string, number>();
  const out: T[] = [];
  items.forEach((item, i) => {
    try {
      const checked = read(item);
      const id = idOf(checked);
      const first = seen.get(id);
      if (first === undefined) seen.set(id, i);
      else errors.push(invalid(`entries.${i}`, `names the same entry as entries.${first}`));
      out.push(checked);
    } catch (err) {
      if (!(err instanceof ListEntryError)) throw err;
      errors.push(invalid(`entries.${i}`, err.message));
    }
  });
  if (errors.length > 0) throw new ApiError(422, capErrors(errors));
  return out;
}

/** POST /v1/lists/entries: adds entries, or replaces those with the same kind and value. */
export const addListEntriesRoute = defineRoute({
  method: 'post',
  path: '/v1/lists/entries',
  operationId: 'addListEntries',
  tags: ['lists'],
  summary: "Add entries to the organisation's list",
  description: `${ORDER} Body up to ${MAX_LIST_JSON_BYTES >> 20} MiB, ${MAX_LIST_ENTRIES_PER_CALL} entries.`,
  auth: 'bearer',
  idempotencyKey: IDEMPOTENCY,
  maxBodyBytes: MAX_LIST_JSON_BYTES,
  body: {
    schema: AddListEntriesRequest,
    examples: {
      deny: {
        summary: 'Deny a range until mid-2027, allow a number',
        value: {
          entries: [
            {
              kind: 'cidr',
              value: '203.0.113.0/24',
              effect: 'deny',
              reason: 'card testing from this range, case 5512',
              expires_at: '2027-06-30T00:00:00Z',
            },
            { kind: 'phone', value: '+447911123456', effect: 'allow', reason: 'our own call centre' },
          ],
        },
      },
    },
  },
  responses: {
    200: {
      description: 'Added: every node applies them within 5 s.',
      headers: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'Idempotent-Replayed'],
      body: json(ListEntriesAdded, { added: { value: { added: 2, version: 17 } } }),
    },
  },
  errors: CHANGE_REFUSALS,
  handler:
    (deps: ListsRouteDeps) =>
    async ({ principal, body, idempotencyKey }, res, req) => {
      const now = new Date();
      const entries = checkedEach(body.entries, (item) => parseListEntry(item, now), listEntryId);
      await admitChange(deps, { principal, idempotencyKey, sent: req.body }, res, async () => {
        const { version } = await deps.listStore.add(principal.org.org_id, entries, actorOf(principal), now);
        return { added: entries.length, version };
      });
    },
});

/** An entry's id (listEntryId) from its kind and a value in any form parseListEntry reads. */
function idOf(item: unknown, now: Date): string {
  const { kind, value } = item as { kind: string; value: string };
  // The effect and reason are placeholders: only the kind and the value's canonical form count.
  return listEntryId(parseListEntry({ kind, value, effect: 'deny', reason: '-' }, now));
}

/** POST /v1/lists/entries/remove: removes entries named by kind and value. */
export const removeListEntriesRoute = defineRoute({
  method: 'post',
  path: '/v1/lists/entries/remove',
  operationId: 'removeListEntries',
  tags: ['lists'],
  summary: "Remove entries from the organisation's list",
  description: `${ORDER} A value is read as when adding (\`::ffff:192.0.2.1\` names the entry \`192.0.2.1\`). Body up to ${MAX_LIST_JSON_BYTES >> 20} MiB, ${MAX_LIST_ENTRIES_PER_CALL} entries.`,
  auth: 'bearer',
  idempotencyKey: IDEMPOTENCY,
  maxBodyBytes: MAX_LIST_JSON_BYTES,
  body: {
    schema: RemoveListEntriesRequest,
    examples: {
      range: { summary: 'One range', value: { entries: [{ kind: 'cidr', value: '203.0.113.0/24' }] } },
    },
  },
  responses: {
    200: {
      description: 'Removed (an entry the list did not hold counts for nothing).',
      headers: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'Idempotent-Replayed'],
      body: json(ListEntriesRemoved, { removed: { value: { removed: 1, version: 18 } } }),
    },
  },
  errors: CHANGE_REFUSALS,
  handler:
    (deps: ListsRouteDeps) =>
    async ({ principal, body, idempotencyKey }, res, req) => {
      const now = new Date();
      const ids = checkedEach(
        body.entries,
        (item) => idOf(item, now),
        (id) => id,
      );
      await admitChange(deps, { principal, idempotencyKey, sent: req.body }, res, () =>
        deps.listStore.remove(principal.org.org_id, ids, actorOf(principal), now),
      );
    },
});

/** The 422 of a CSV with bad lines: their count first, then the first 100 of them. */
function csvRefused(errors: { line: number; error: string }[], count: number): ApiError {
  const summary: ErrorItem = {
    code: 'E_LIST_REFUSED',
    message: `${count.toLocaleString('en')} bad line${count === 1 ? '' : 's'}; the list was not changed${count > errors.length ? ` (the first ${errors.length} are listed)` : ''}`,
  };
  const lines = errors.map((e) => ({ ...invalid(`line.${e.line}`, e.error) }));
  return new ApiError(422, [summary, ...lines], { 'X-Invalid-Lines': String(count) });
}

const CSV_EXAMPLE =
  'kind,value,effect,reason,expires_at\r\n' +
  'phone,+447911123456,allow,our own call centre,\r\n' +
  'cidr,203.0.113.0/24,deny,"card testing, case 5512",2027-06-30T00:00:00Z\r\n' +
  'asn,AS64500,deny,bulletproof hosting,\r\n';

/** PUT /v1/lists: the whole list replaced by a CSV, applied whole or refused whole. */
export const replaceListRoute = defineRoute({
  method: 'put',
  path: '/v1/lists',
  operationId: 'replaceList',
  tags: ['lists'],
  summary: "Replace the organisation's whole list with a CSV",
  description:
    `${ORDER} The CSV is checked whole before anything is written: one bad line (or a second line for the same ` +
    'kind and value, or more than 100,000 entries) refuses the file and the list stays as it was; otherwise ' +
    'every node moves from the old list to the new one at once, never through part of either. ' +
    `Body up to ${MAX_LIST_CSV_BYTES >> 20} MiB.`,
  auth: 'bearer',
  idempotencyKey: IDEMPOTENCY,
  maxBodyBytes: MAX_LIST_CSV_BYTES,
  textBody: {
    mediaType: 'text/csv',
    description:
      "UTF-8, RFC 4180. Header `kind,value,effect,reason,expires_at` (a download's `,added_by,added_at` are read " +
      'and ignored), then one entry per line; `expires_at` may be empty. An empty list is a header alone.',
    example: CSV_EXAMPLE,
  },
  responses: {
    200: {
      description: 'Replaced.',
      headers: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'Idempotent-Replayed'],
      body: json(ListReplaced, { replaced: { value: { before: 12, after: 3, version: 19 } } }),
    },
  },
  errors: CHANGE_REFUSALS,
  handler:
    (deps: ListsRouteDeps) =>
    async ({ principal, body, idempotencyKey }, res) => {
      const now = new Date();
      const csv = body as string;
      // In turns: a 100,000-line file is a second of work, which no scoring request waits behind.
      const parsed = await parseListCsvCooperative(csv, now);
      if (!parsed.ok) throw csvRefused(parsed.errors, parsed.count);
      await admitChange(deps, { principal, idempotencyKey, sent: csv }, res, async () => {
        const { before, after, version } = await deps.listStore.replace(
          principal.org.org_id,
          parsed.entries,
          actorOf(principal),
          now,
        );
        return { before, after, version };
      });
    },
});
