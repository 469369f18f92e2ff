import { listCsv } from '../../../shared/capabilities/org-lists/csv.ts';
import { LIST_PAGE_DEFAULT, ListEntriesPage, ListEntriesQuery } from '../../../shared/contract/lists.ts';
import { json } from '../../../shared/contract/operation.ts';
import { defineRoute } from '../http/route.ts';
import { setHeaders } from '../http/send-json.ts';
import { listPage, SortedEntries } from '../../../shared/orgs/list-pages.ts';
import type { ListsRouteDeps } from './lists.ts';

const EXAMPLE_ENTRY = {
  kind: 'cidr',
  value: '203.0.113.0/24',
  effect: 'deny',
  reason: 'card testing from this range, case 5512',
  expires_at: '2027-06-30T00:00:00.000Z',
  added_by: 'key:key_3f9a1c0e5b7d2468',
  added_at: '2026-11-22T18:04:05.123Z',
} as const;

/** GET /v1/lists: the organisation's entries, a page at a time. Every tier; never billed. */
export const listEntriesRoute = defineRoute({
  method: 'get',
  path: '/v1/lists',
  operationId: 'listEntries',
  tags: ['lists'],
  summary: "The organisation's allow and deny entries, a page at a time",
  description:
    "Every tier; never billed. Rate limited with the other list operations, in a window of their own at the tier's rate, " +
    'separate from scoring. Ordered by kind then value; `kind` and `effect` filter. A change reaches every API node within 5 s.',
  auth: 'bearer',
  query: ListEntriesQuery,
  responses: {
    200: {
      description: 'A page of entries.',
      headers: ['X-RateLimit-Limit', 'X-RateLimit-Remaining'],
      body: json(ListEntriesPage, {
        page: { value: { entries: [EXAMPLE_ENTRY], total: 1 } },
      }),
    },
  },
  errors: ['Unauthenticated', 'ValidationFailed', 'RateLimited', 'Internal'],
  handler: (deps: ListsRouteDeps) => {
    const sorted = new SortedEntries(deps.listStore);
    return async ({ principal, query }, res) => {
      const admission = await deps.controls.admit(principal, undefined, undefined, 'lists');
      setHeaders(res, admission.headers);
      const { limit, ...filter } = query;
      const entries = await sorted.of(principal.org.org_id);
      res.json(
        listPage(entries, { ...filter, limit: limit === undefined ? LIST_PAGE_DEFAULT : Number(limit) }),
      );
    };
  },
});

/** GET /v1/lists.csv: the whole list as the CSV `PUT /v1/lists` takes back. */
export const downloadListRoute = defineRoute({
  method: 'get',
  path: '/v1/lists.csv',
  operationId: 'downloadList',
  tags: ['lists'],
  summary: "The organisation's whole list as CSV",
  description:
    'The header `kind,value,effect,reason,expires_at,added_by,added_at`, then one line per entry ordered by kind ' +
    "then value (RFC 4180 quoting; a reason starting with `=`, `+`, `-` or `@` is written after a `'` so that " +
    'spreadsheets show it as text). `PUT /v1/lists` takes the file back as it is. Rate limited as `GET /v1/lists`.',
  auth: 'bearer',
  responses: {
    200: {
      description: 'The list, as an attachment `lists.csv`.',
      headers: ['X-RateLimit-Limit', 'X-RateLimit-Remaining'],
      body: { mediaType: 'text/csv', jsonSchema: { type: 'string' } },
    },
  },
  errors: ['Unauthenticated', 'RateLimited', 'Internal'],
  handler: (deps: ListsRouteDeps) => {
    const sorted = new SortedEntries(deps.listStore);
    return async ({ principal }, res) => {
      const admission = await deps.controls.admit(principal, undefined, undefined, 'lists');
      setHeaders(res, admission.headers);
      res
        .type('text/csv; charset=utf-8')
        .set('Content-Disposition', 'attachment; filename="lists.csv"')
        .send(listCsv(await sorted.of(principal.org.org_id)));
    };
  },
});
