// The portal's only script (served from this origin; the CSP forbids inline script).
// - Copy buttons: [data-copy=<element id>] copy that input's value (or that element's text).
// - Times: <time datetime> is shown in the viewer's time zone; its title keeps the UTC time.
// - The Activity table (table[data-live]) gains new rows twice a second and a fresh usage panel
//   every 2 s, without redrawing the rows already there: focus and a text selection survive. Each
//   poll asks only for the rows pushed since the list count it has (data-seq). It can be paused.
'use strict';

document.addEventListener('click', async (ev) => {
  const button = ev.target instanceof Element ? ev.target.closest('[data-copy]') : null;
  if (!button) return;
  const source = document.getElementById(button.getAttribute('data-copy'));
  if (!source) return;
  const text = 'value' in source ? source.value : source.textContent;
  if ('select' in source) source.select();
  let ok;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch {
    ok = document.execCommand && document.execCommand('copy');
  }
  const note = button.parentElement.querySelector('.copied');
  if (note) note.textContent = ok ? 'Copied.' : 'Select the text and copy it.';
});

const localTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
});

/** Server-rendered times are UTC; the viewer reads them in their own zone, UTC on hover. */
function localiseTimes(root) {
  for (const t of root.querySelectorAll('time[datetime]:not([data-local])')) {
    const d = new Date(t.getAttribute('datetime'));
    if (Number.isNaN(d.getTime())) continue;
    t.title = t.textContent.trim();
    t.textContent = localTime.format(d);
    t.setAttribute('data-local', '');
  }
}
localiseTimes(document);

// An error summary takes focus, so a screen reader reads it and the keyboard starts there.
const summary = document.querySelector('.error-summary');
if (summary) summary.focus();

const table = document.querySelector('table[data-live]');
if (table) {
  const body = table.querySelector('tbody');
  const usage = document.getElementById('usage');
  const status = document.getElementById('live-status');
  const toggle = document.getElementById('live-toggle');
  const url = table.getAttribute('data-live');
  let seq = table.getAttribute('data-seq');
  let polls = 0;
  let paused = false;
  let lastUsage = '';

  const say = (text) => {
    if (status && status.textContent !== text) status.textContent = text;
  };

  /** A row the user is on (focus or a text selection): never dropped under them. */
  const inUse = (row) => {
    const selection = document.getSelection();
    return row.contains(document.activeElement) || (selection && selection.containsNode(row, true));
  };

  /**
   * Rows the server sent that this table lacks are inserted where their time puts them (newest
   * first; two API nodes' scores can arrive out of order); rows already shown stay. `full`: the
   * server sent its whole list, and shown rows it no longer has go. Otherwise it sent the new rows
   * only, and the oldest rows past `limit` go.
   */
  const merge = (rowsHtml, full, limit) => {
    const tpl = document.createElement('template');
    tpl.innerHTML = `<table><tbody>${rowsHtml}</tbody></table>`;
    const incoming = [...tpl.content.querySelectorAll('tr[data-score-id]')];
    if (incoming.length === 0) return;
    const shown = new Map([...body.querySelectorAll('tr[data-score-id]')].map((r) => [r.dataset.scoreId, r]));
    for (const placeholder of body.querySelectorAll('tr:not([data-score-id])')) placeholder.remove();
    localiseTimes(tpl.content);
    // Oldest first, each placed before the first shown row older than it.
    for (const row of incoming.reverse()) {
      if (shown.has(row.dataset.scoreId)) continue;
      const at = Number(row.dataset.at);
      const next = [...body.querySelectorAll('tr[data-score-id]')].find((r) => Number(r.dataset.at) < at);
      if (next) next.before(row);
      else body.append(row);
    }
    const rows = [...body.querySelectorAll('tr[data-score-id]')];
    if (full) {
      const keep = new Set(incoming.map((r) => r.dataset.scoreId));
      for (const row of rows) if (!keep.has(row.dataset.scoreId) && !inUse(row)) row.remove();
    } else {
      for (const row of rows.slice(limit)) if (!inUse(row)) row.remove();
    }
  };

  const tick = async () => {
    if (paused) return;
    try {
      // The usage panel every fourth poll (2 s), and on the first one after a pause.
      const withUsage = polls++ % 4 === 0 ? '&usage=1' : '';
      const at = `${url}${url.includes('?') ? '&' : '?'}seq=${encodeURIComponent(seq)}${withUsage}`;
      const res = await fetch(at, { credentials: 'same-origin', headers: { accept: 'application/json' } });
      if (res.redirected || !res.ok) {
        say(res.redirected ? 'Signed out: reload the page to sign in again.' : 'Updates failed; retrying.');
        return;
      }
      const data = await res.json();
      if (paused) return;
      // Both fragments are rendered and escaped by the server.
      merge(data.rows, data.full, data.limit);
      seq = String(data.seq);
      if (usage && data.usage !== undefined && data.usage !== lastUsage) {
        lastUsage = data.usage;
        usage.innerHTML = data.usage;
        localiseTimes(usage);
      }
      say(data.live ? 'Live: new scores appear as they happen.' : 'Waiting for the audit pipeline.');
    } catch {
      say('Connection lost; retrying.');
    }
  };

  if (toggle) {
    toggle.hidden = false;
    toggle.addEventListener('click', () => {
      paused = !paused;
      toggle.setAttribute('aria-pressed', String(paused));
      toggle.textContent = paused ? 'Resume updates' : 'Pause updates';
      say(paused ? 'Paused: new scores are not shown until you resume.' : 'Resuming…');
      if (!paused) {
        polls = 0;
        void tick();
      }
    });
  }
  setInterval(tick, 500);
}
