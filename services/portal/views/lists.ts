/**
 * The Lists page: the organisation's own allow and deny entries. Values are shown in clear: they
 * are the organisation's own data, written by its own staff, and its staff manage them here
 * (unlike Activity, whose subjects are masked until revealed, nothing here came from a caller).
 */
import {
  LIST_EFFECTS,
  LIST_ENTRY_KINDS,
  type ListEntry,
  type ListEntryKind,
} from '../../../shared/capabilities/org-lists/types.ts';
import type { ListPage, ListPageQuery } from '../../../shared/orgs/list-pages.ts';
import { html, type SafeHtml } from '../html.ts';
import type { Session } from '../sessions.ts';
import { num, when } from './format.ts';
import { errorSummary, fieldError, invalidAttrs, layout, type FormError } from './layout.ts';

const KIND_LABELS: Record<ListEntryKind, string> = {
  phone: 'phone number',
  phone_prefix: 'number prefix',
  ip: 'IP address',
  cidr: 'IP range (CIDR)',
  asn: 'AS number',
};

/** What the add form had when it was refused, so nothing typed is lost. */
export type TypedEntry = Partial<Record<'kind' | 'value' | 'effect' | 'reason' | 'expires_at', string>>;

export interface ListsView {
  page: ListPage;
  filter: Omit<ListPageQuery, 'limit'>;
  /** Entries the organisation holds, whatever the filter. */
  held: number;
  notice?: string;
  /** A change refused after its redirect (a remove naming no entry). */
  error?: string;
  /** A refused add: the problems, each on its field, and what was typed. */
  addErrors?: FormError[];
  typed?: TypedEntry;
  /** A refused upload: the first bad lines and how many there were. */
  upload?: { message: string; lines: { line: number; error: string }[]; count: number };
}

const filterQuery = (f: ListsView['filter']) =>
  new URLSearchParams({ ...(f.kind ? { kind: f.kind } : {}), ...(f.effect ? { effect: f.effect } : {}) });

function options<T extends string>(
  values: readonly T[],
  selected: string | undefined,
  label: (v: T) => string,
) {
  return values.map(
    (v) => html`<option value="${v}" ${selected === v ? html`selected` : ''}>${label(v)}</option>`,
  );
}

function addForm(csrf: string, errors: FormError[], typed: TypedEntry): SafeHtml {
  const text = (name: keyof TypedEntry, label: string, extra: SafeHtml = html``) =>
    html`<div class="field">
      <label for="${name}">${label}</label>
      ${fieldError(errors, name)}
      <input
        id="${name}"
        name="${name}"
        value="${typed[name] ?? ''}"
        ${extra}
        ${invalidAttrs(errors, name)}
      />
    </div>`;
  return html`<form method="post" action="/lists" class="card list-form" id="add-entry" novalidate>
    <h2>Add an entry</h2>
    <input type="hidden" name="_csrf" value="${csrf}" />
    <div class="field">
      <label for="kind">Kind</label>
      ${fieldError(errors, 'kind')}
      <select id="kind" name="kind" ${invalidAttrs(errors, 'kind')}>
        ${options(LIST_ENTRY_KINDS, typed.kind, (k) => KIND_LABELS[k])}
      </select>
    </div>
    ${text('value', 'Value', html`autocomplete="off" spellcheck="false" maxlength="64"`)}
    <div class="field">
      <label for="effect">Effect</label>
      ${fieldError(errors, 'effect')}
      <select id="effect" name="effect" ${invalidAttrs(errors, 'effect')}>
        ${options(LIST_EFFECTS, typed.effect ?? 'deny', (e) => (e === 'deny' ? 'deny (at least high)' : 'allow (at most low)'))}
      </select>
    </div>
    ${text('reason', 'Reason', html`maxlength="200"`)}
    ${text('expires_at', 'Expires (optional; at 00:00 UTC that day)', html`type="date"`)}
    <button type="submit">Add entry</button>
  </form>`;
}

function uploadForm(csrf: string, held: number): SafeHtml {
  return html`<form
    method="post"
    action="/lists/upload"
    enctype="multipart/form-data"
    class="card list-form"
    id="upload-list"
  >
    <h2>Replace the whole list from a CSV</h2>
    <p>
      The header is <code>kind,value,effect,reason,expires_at</code>, then one entry per line. The file is
      checked whole: one bad line and nothing changes; otherwise it replaces the whole list (now ${num(held)}
      ${held === 1 ? 'entry' : 'entries'}) at once.
      <a href="/lists.csv" download>Download the list as CSV</a> to edit it.
    </p>
    <input type="hidden" name="_csrf" value="${csrf}" />
    <label for="csv">CSV file (up to 10 MiB)</label>
    <input type="file" id="csv" name="csv" accept=".csv,text/csv" />
    <button type="submit">Replace the list</button>
  </form>`;
}

/** Why an upload was refused: the count, then the first bad lines, each with its number. */
function uploadReport(u: NonNullable<ListsView['upload']>): SafeHtml {
  return html`<div class="error-summary" role="alert" tabindex="-1" aria-labelledby="upload-report-title">
    <h2 id="upload-report-title">The list was not changed</h2>
    <p>${u.message}</p>
    ${
      u.lines.length > 0
        ? html`<ul id="upload-report">
            ${u.lines.map((l) => html`<li>Line ${num(l.line)}: ${l.error}</li>`)}
          </ul>`
        : ''
    }
  </div>`;
}

function filterForm(f: ListsView['filter']): SafeHtml {
  return html`<form method="get" action="/lists" class="inline-form" id="filter">
    <label
      >Kind
      <select name="kind" id="filter-kind">
        <option value="">all</option>
        ${options(LIST_ENTRY_KINDS, f.kind, (k) => KIND_LABELS[k])}
      </select></label
    >
    <label
      >Effect
      <select name="effect" id="filter-effect">
        <option value="">all</option>
        ${options(LIST_EFFECTS, f.effect, (e) => e)}
      </select></label
    >
    <button type="submit">Apply</button>
  </form>`;
}

function entryRow(e: ListEntry, csrf: string, nowMs: number): SafeHtml {
  const expired = e.expires_at !== undefined && Date.parse(e.expires_at) < nowMs;
  return html`<tr data-entry="${e.kind}:${e.value}">
    <td><code>${e.value}</code></td>
    <td>${KIND_LABELS[e.kind]}</td>
    <td class="effect" data-effect="${e.effect}">${e.effect}</td>
    <td>${e.reason}</td>
    <td>
      ${e.expires_at ? html`${when(e.expires_at)}${expired ? html` <strong>(expired)</strong>` : ''}` : 'never'}
    </td>
    <td>${e.added_by}</td>
    <td>${when(e.added_at)}</td>
    <td class="row-actions">
      <form method="post" action="/lists/remove" class="inline">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <input type="hidden" name="kind" value="${e.kind}" />
        <input type="hidden" name="value" value="${e.value}" />
        <button type="submit" class="danger">Remove<span class="visually-hidden"> ${e.value}</span></button>
      </form>
    </td>
  </tr>`;
}

function entriesTable(v: ListsView, csrf: string): SafeHtml {
  const { entries, total, next_cursor } = v.page;
  if (total === 0)
    return html`<p id="no-entries">
      ${v.held === 0 ? 'The list is empty.' : 'No entry matches the filter.'}
    </p>`;
  const q = filterQuery(v.filter);
  const nowMs = Date.now();
  const noun = `${num(total)} ${total === 1 ? 'entry' : 'entries'}`;
  const count =
    v.filter.kind || v.filter.effect
      ? `${noun} ${total === 1 ? 'matches' : 'match'} the filter.`
      : `${noun}.`;
  return html`<p id="entries-count">${count}</p>
    <div class="table-scroll" tabindex="0" role="region" aria-label="Entries (scrolls sideways)">
      <table id="entries">
        <thead>
          <tr>
            <th scope="col">Value</th>
            <th scope="col">Kind</th>
            <th scope="col">Effect</th>
            <th scope="col">Reason</th>
            <th scope="col">Expires</th>
            <th scope="col">Added by</th>
            <th scope="col">Added at</th>
            <th scope="col"><span class="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          ${entries.map((e) => entryRow(e, csrf, nowMs))}
        </tbody>
      </table>
    </div>
    <nav class="actions" aria-label="Pages">
      ${v.filter.cursor ? html`<a href="/lists${q.size ? `?${q}` : ''}" id="first-page">First page</a>` : ''}
      ${next_cursor ? html`<a href="/lists?${new URLSearchParams([...q, ['cursor', next_cursor]])}" id="next-page">Next page</a>` : ''}
    </nav>`;
}

export function listsPage(session: Session & { orgName?: string }, v: ListsView): SafeHtml {
  const addErrors = v.addErrors ?? [];
  return layout(
    'Lists',
    html`${v.notice ? html`<p class="notice" role="status">${v.notice}</p>` : ''}
      ${v.upload ? uploadReport(v.upload) : errorSummary(v.error ? [{ text: v.error }] : addErrors)}
      <p class="intro">
        Your organisation's own entries: an <strong>allow</strong> entry caps the band of a matching score at
        low, a <strong>deny</strong> entry lifts it to at least high. The most specific entry wins (a number
        over a prefix, an address over a range, a range over an AS number); an expired entry does nothing.
        Changes reach every API node within 5 seconds and apply to your scores only.
      </p>
      ${addForm(session.csrf, addErrors, v.typed ?? {})} ${uploadForm(session.csrf, v.held)}
      <h2>Entries</h2>
      ${filterForm(v.filter)} ${entriesTable(v, session.csrf)}`,
    session,
  );
}
