import type { KeyRecord } from '../../../shared/orgs/store.ts';
import { API_KEY_PREFIX } from '../../../shared/orgs/keys.ts';
import { html, type SafeHtml } from '../html.ts';
import type { Session } from '../sessions.ts';
import { num, when } from './format.ts';
import { errorSummary, fieldError, invalidAttrs, layout, type FormError } from './layout.ts';

export const KEY_SORTS = ['label', 'created', 'last_used', 'status'] as const;
export interface KeySort {
  by: (typeof KEY_SORTS)[number];
  dir: 'asc' | 'desc';
}

/** A key's status in words: a rolled key says until when it works. */
function statusOf(k: KeyRecord): { word: string; rank: number; until?: number } {
  if (k.status === 'revoked') return { word: 'revoked', rank: 2 };
  if (k.expires_at !== undefined) return { word: 'ending', rank: 1, until: k.expires_at };
  return { word: 'active', rank: 0 };
}

function sortKeys(keys: KeyRecord[], lastUsed: Map<string, number>, sort: KeySort): KeyRecord[] {
  const value = (k: KeyRecord): string | number => {
    switch (sort.by) {
      case 'label':
        return k.label.toLowerCase();
      case 'last_used':
        return lastUsed.get(k.key_id) ?? 0;
      case 'status':
        return statusOf(k).rank;
      case 'created':
        return k.created_at;
    }
  };
  const sign = sort.dir === 'asc' ? 1 : -1;
  return keys.toSorted((a, b) => {
    const [x, y] = [value(a), value(b)];
    return (x < y ? -1 : x > y ? 1 : b.created_at.localeCompare(a.created_at)) * sign;
  });
}

const SORT_LABELS: Record<KeySort['by'], string> = {
  label: 'Label',
  created: 'Created',
  last_used: 'Last used',
  status: 'Status',
};

/** A column header that sorts by its column (a link: works without script, from the keyboard). */
function sortHeader(by: KeySort['by'], current: KeySort): SafeHtml {
  const active = current.by === by;
  const next = active && current.dir === 'desc' ? 'asc' : 'desc';
  return html`<th
    scope="col"
    aria-sort="${active ? (current.dir === 'asc' ? 'ascending' : 'descending') : 'none'}"
  >
    <a href="/keys?sort=${by}&amp;dir=${next}" class="sort"
      >${SORT_LABELS[by]}${active ? html`<span aria-hidden="true">${current.dir === 'asc' ? ' ▲' : ' ▼'}</span>` : ''}</a
    >
  </th>`;
}

export interface KeysView {
  keys: KeyRecord[];
  lastUsed: Map<string, number>;
  /** Most active keys the organisation may hold (MAX_ACTIVE_KEYS). */
  maxActive: number;
  /** The API's public address, for the `curl` example. */
  apiUrl: string;
  /** Shown once, right after creation. */
  created?: { key_id: string; api_key: string; label: string };
  notice?: string;
  error?: string;
  /** The field an error is about, with what was typed. */
  field?: { name: string; value: string };
  sort?: KeySort;
}

/** A first call with a key: what a new user copies to see a score appear on Activity. */
export function curlExample(apiUrl: string, apiKey: string, id: string): SafeHtml {
  const command = [
    `curl -sS ${apiUrl}/v1/score \\`,
    `  -H 'Authorization: Bearer ${apiKey}' \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '{"subject":{"phone_number":"+447911123456","ip_address":"81.2.69.142"}}'`,
  ].join('\n');
  return html`<div class="copy-block">
    <pre id="${id}" tabindex="0">${command}</pre>
    <button type="button" data-copy="${id}">Copy command</button>
    <span class="copied" aria-live="polite"></span>
  </div>`;
}

function createdPanel(c: NonNullable<KeysView['created']>, apiUrl: string): SafeHtml {
  return html`<section class="created" id="new-key" aria-labelledby="new-key-title">
    <h2 id="new-key-title">New key ${c.label ? html`“${c.label}”` : ''} (${c.key_id})</h2>
    <p class="warning">
      <strong>Copy this key now.</strong> It is shown only this once: the service keeps only a digest of it
      and cannot show it again. If you lose it, revoke it and create another.
    </p>
    <div class="copy-row">
      <input id="new-key-value" class="key" readonly value="${c.api_key}" aria-label="API key" />
      <button type="button" data-copy="new-key-value">Copy key</button>
      <span class="copied" aria-live="polite"></span>
    </div>
    <p>Try it: this scores a test subject; the score appears on <a href="/activity">Activity</a>.</p>
    ${curlExample(apiUrl, c.api_key, 'new-key-curl')}
  </section>`;
}

/** What an empty Keys page says: what a key is for and how to make the first call. */
function firstUse(apiUrl: string): SafeHtml {
  return html`<section class="card first-use" id="first-use" aria-labelledby="first-use-title">
    <h2 id="first-use-title">Start here: create your first API key</h2>
    <p>
      Your services call the scoring API with an API key; every score is billed to and visible only to your
      organisation. Give the key a label naming the service that will use it, then create it below. The full
      key is shown once, with a command to try it:
    </p>
    ${curlExample(apiUrl, `${API_KEY_PREFIX}…`, 'first-use-curl')}
  </section>`;
}

function keyRow(k: KeyRecord, lastUsed: Map<string, number>): SafeHtml {
  const st = statusOf(k);
  const name = k.label || k.key_id;
  return html`<tr data-key-id="${k.key_id}" class="${k.status}">
    <td>${k.label || html`<span class="muted">(no label)</span>`}</td>
    <td>
      <code>${k.hint ? `${API_KEY_PREFIX}${k.hint}…` : '—'}</code>
      <code class="hint block">${k.key_id}</code>
    </td>
    <td>${when(k.created_at)}</td>
    <td class="last-used">${when(lastUsed.get(k.key_id))}</td>
    <td class="status" data-status="${st.word}">
      ${st.until !== undefined ? html`ends ${when(st.until)}` : st.word}
    </td>
    <td class="row-actions">
      ${
        k.status === 'active'
          ? html`${
                st.until === undefined
                  ? html`<a href="/keys/${k.key_id}/roll" class="roll"
                      >Roll<span class="visually-hidden"> ${name}</span></a
                    >`
                  : ''
              }
              <a class="danger" href="/keys/${k.key_id}/revoke"
                >Revoke<span class="visually-hidden"> ${name}</span></a
              >`
          : ''
      }
    </td>
  </tr>`;
}

function createForm(csrf: string, errors: FormError[], typed: string | undefined): SafeHtml {
  return html`<form method="post" action="/keys" class="card inline-form" novalidate>
    <input type="hidden" name="_csrf" value="${csrf}" />
    <div class="field">
      <label for="label">Label</label>
      ${fieldError(errors, 'label')}
      <input
        id="label"
        name="label"
        maxlength="64"
        placeholder="e.g. checkout service"
        value="${typed ?? ''}"
        ${invalidAttrs(errors, 'label')}
      />
    </div>
    <button type="submit">Create key</button>
  </form>`;
}

function keysTable(v: KeysView, sort: KeySort): SafeHtml {
  if (!v.keys.length) return html``;
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Keys (scrolls sideways)">
    <table id="keys">
      <thead>
        <tr>
          ${sortHeader('label', sort)}
          <th scope="col">Key</th>
          ${sortHeader('created', sort)} ${sortHeader('last_used', sort)} ${sortHeader('status', sort)}
          <th scope="col"><span class="visually-hidden">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        ${sortKeys(v.keys, v.lastUsed, sort).map((k) => keyRow(k, v.lastUsed))}
      </tbody>
    </table>
  </div>`;
}

export function keysPage(session: Session & { orgName?: string }, v: KeysView): SafeHtml {
  const errors: FormError[] = v.error ? [{ field: v.field?.name, text: v.error }] : [];
  const active = v.keys.filter((k) => k.status === 'active').length;
  const sort = v.sort ?? { by: 'created', dir: 'desc' };
  return layout(
    'API keys',
    html`${v.notice ? html`<p class="notice" role="status">${v.notice}</p>` : ''}
      ${v.created ? createdPanel(v.created, v.apiUrl) : ''} ${v.keys.length === 0 ? firstUse(v.apiUrl) : ''}
      ${errorSummary(errors)} ${createForm(session.csrf, errors, v.field?.value)} ${keysTable(v, sort)}
      <p class="hint" id="keys-active">${num(active)} of at most ${num(v.maxActive)} active keys.</p>
      <p class="hint">"Last used" is updated by the API nodes about once a minute.</p>`,
    session,
  );
}

export function revokePage(session: Session & { orgName?: string }, k: KeyRecord): SafeHtml {
  return layout(
    'Revoke key',
    html`<div class="card">
      <p>
        Revoke <strong>${k.label || k.key_id}</strong> (<code>${k.key_id}</code>, starts
        <code>${API_KEY_PREFIX}${k.hint}…</code>)?
      </p>
      <p class="warning">
        Every request with this key is refused (401) within a second, on every API node. This cannot be
        undone.
      </p>
      <form method="post" action="/keys/${k.key_id}/revoke" class="inline">
        <input type="hidden" name="_csrf" value="${session.csrf}" />
        <button type="submit" class="danger" id="confirm-revoke">Revoke key</button>
      </form>
      <a href="/keys">Cancel</a>
    </div>`,
    session,
  );
}

/** Overlaps offered when rolling a key: how long the old key keeps working beside the new one. */
const OVERLAPS: [number, string][] = [
  [0, 'No overlap: the old key stops now'],
  [3600, '1 hour'],
  [86400, '24 hours'],
  [7 * 86400, '7 days'],
];

export function rollPage(session: Session & { orgName?: string }, k: KeyRecord): SafeHtml {
  return layout(
    'Roll key',
    html`<div class="card">
      <p>
        Roll <strong>${k.label || k.key_id}</strong> (<code>${k.key_id}</code>, starts
        <code>${API_KEY_PREFIX}${k.hint}…</code>): a new key with the same label is created now and shown
        once; the old key keeps working for the overlap you choose, then every API node refuses it and it is
        revoked.
      </p>
      <form method="post" action="/keys/${k.key_id}/roll">
        <input type="hidden" name="_csrf" value="${session.csrf}" />
        <label for="overlap_s">The old key keeps working for</label>
        <select id="overlap_s" name="overlap_s">
          ${OVERLAPS.map(([s, text]) => html`<option value="${s}" ${s === 86400 ? html`selected` : ''}>${text}</option>`)}
        </select>
        <p class="actions">
          <button type="submit" id="confirm-roll">Roll key</button>
          <a href="/keys">Cancel</a>
        </p>
      </form>
    </div>`,
    session,
  );
}
