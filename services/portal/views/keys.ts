import type { KeyRecord } from '../../../shared/orgs/store.ts';
import { API_KEY_PREFIX } from '../../../shared/orgs/keys.ts';
import { html, type SafeHtml } from '../html.ts';
import type { Session } from '../sessions.ts';
import { when } from './format.ts';
import { layout } from './layout.ts';

export interface KeysView {
  keys: KeyRecord[];
  lastUsed: Map<string, number>;
  /** Most active keys the organisation may hold (MAX_ACTIVE_KEYS). */
  maxActive: number;
  /** Shown once, right after creation. */
  created?: { key_id: string; api_key: string; label: string };
  notice?: string;
  error?: string;
  /** The field an error is about, with what was typed. */
  field?: { name: string; value: string };
}

function createdPanel(c: NonNullable<KeysView['created']>): SafeHtml {
  return html`<section class="created" id="new-key">
    <h2>New key ${c.label ? html`“${c.label}”` : ''} (${c.key_id})</h2>
    <p class="warning" role="alert">
      <strong>Copy this key now.</strong> It is shown only this once: the service keeps only a digest of it
      and cannot show it again. If you lose it, revoke it and create another.
    </p>
    <div class="copy-row">
      <input id="new-key-value" class="key" readonly value="${c.api_key}" aria-label="API key" />
      <button type="button" data-copy="new-key-value">Copy</button>
      <span class="copied" aria-live="polite"></span>
    </div>
  </section>`;
}

export function keysPage(session: Session & { orgName?: string }, v: KeysView): SafeHtml {
  const rows = v.keys
    .toSorted((a, b) => b.created_at.localeCompare(a.created_at))
    .map(
      (k) =>
        html`<tr data-key-id="${k.key_id}" class="${k.status}">
          <td>${k.label || html`<span class="muted">(no label)</span>`}</td>
          <td><code>${k.key_id}</code></td>
          <td><code>${k.hint ? `${API_KEY_PREFIX}${k.hint}…` : '—'}</code></td>
          <td>${when(k.created_at)}</td>
          <td class="last-used">${when(v.lastUsed.get(k.key_id))}</td>
          <td class="status">${k.status}</td>
          <td>
            ${k.status === 'active' ? html`<a class="danger" href="/keys/${k.key_id}/revoke">Revoke</a>` : ''}
          </td>
        </tr>`,
    );
  return layout(
    'API keys',
    html`${v.notice ? html`<p class="notice" role="status">${v.notice}</p>` : ''}
      ${v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''}
      ${v.created ? createdPanel(v.created) : ''}
      <form method="post" action="/keys" class="card inline-form">
        <input type="hidden" name="_csrf" value="${session.csrf}" />
        <label
          >Label
          <input
            name="label"
            maxlength="64"
            placeholder="e.g. checkout service"
            required
            value="${v.field?.value ?? ''}"
        /></label>
        <button type="submit">Create key</button>
      </form>
      <table id="keys">
        <thead>
          <tr>
            <th>Label</th>
            <th>Key id</th>
            <th>Key starts</th>
            <th>Created</th>
            <th>Last used</th>
            <th>Status</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${
            rows.length
              ? rows
              : html`<tr>
                  <td colspan="7" class="muted">No keys yet.</td>
                </tr>`
          }
        </tbody>
      </table>
      <p class="hint" id="keys-active">
        ${v.keys.filter((k) => k.status === 'active').length} of at most ${v.maxActive} active keys.
      </p>
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
