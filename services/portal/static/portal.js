// The portal's only script (served from this origin; the CSP forbids inline script).
// - Copy buttons: [data-copy=<input id>] copies that input's value.
// - The Activity table (table[data-live]) refreshes its rows and the usage panel twice a second.
'use strict';

document.addEventListener('click', async (ev) => {
  const button = ev.target instanceof Element ? ev.target.closest('[data-copy]') : null;
  if (!button) return;
  const input = document.getElementById(button.getAttribute('data-copy'));
  if (!input) return;
  input.select();
  let ok;
  try {
    await navigator.clipboard.writeText(input.value);
    ok = true;
  } catch {
    ok = document.execCommand && document.execCommand('copy');
  }
  const note = button.parentElement.querySelector('.copied');
  if (note) note.textContent = ok ? 'Copied.' : 'Select the key and copy it.';
});

const table = document.querySelector('table[data-live]');
if (table) {
  const body = table.querySelector('tbody');
  const usage = document.getElementById('usage');
  const url = table.getAttribute('data-live');
  const tick = async () => {
    try {
      const res = await fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } });
      if (res.redirected || !res.ok) return;
      const data = await res.json();
      // Both fragments are rendered and escaped by the server.
      body.innerHTML = data.rows;
      if (usage) usage.innerHTML = data.usage;
    } catch {
      // Network hiccup: try again at the next tick.
    }
  };
  setInterval(tick, 500);
}
