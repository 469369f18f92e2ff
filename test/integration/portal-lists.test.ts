/**
 * The portal's Lists page over HTTP, against a portal process on the shared Redis (as the portal's
 * Redis user): signed-in staff see their organisation's entries a page at a time, add one, remove
 * one, replace the whole list from an uploaded CSV (refused whole with its bad lines named, or
 * applied whole) and download it; each change as `user:<email>`, behind the session's CSRF token;
 * another organisation's staff see and change none of it.
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListEntryInput } from '../../shared/capabilities/org-lists/types.ts';
import { OrgListStore } from '../../shared/orgs/lists-store.ts';
import { redis } from '../../infra/harness/fixtures.ts';
import { completeSetup, cookiePair, newPortalUser, startPortal, type PortalNode } from '../helpers/portal.ts';

const PASSWORD = 'correct horse battery staple';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const HEADER = 'kind,value,effect,reason,expires_at';

interface Staff {
  orgId: string;
  email: string;
  cookie: string;
  csrf: string;
}

describe('the portal Lists page', () => {
  let portal: PortalNode;
  const r = redis();
  const store = new OrgListStore(r);
  let a: Staff;
  let b: Staff;

  async function staff(): Promise<Staff> {
    const user = await newPortalUser(r);
    const cookie = cookiePair(await completeSetup(portal.url, user.setupToken, PASSWORD), 'frs_session')!;
    const page = await fetch(`${portal.url}/lists`, { headers: { cookie } });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    return { orgId: user.orgId, email: user.email, cookie, csrf };
  }

  beforeAll(async () => {
    portal = await startPortal();
    [a, b] = [await staff(), await staff()];
  });

  afterAll(async () => {
    await portal?.stop();
    r.disconnect();
  });

  const get = (who: Staff, path = '/lists') =>
    fetch(`${portal.url}${path}`, { headers: { cookie: who.cookie } });
  const post = (who: Staff, path: string, fields: Record<string, string>, csrf = who.csrf) =>
    fetch(`${portal.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...FORM, cookie: who.cookie },
      body: new URLSearchParams({ ...(csrf ? { _csrf: csrf } : {}), ...fields }),
    });
  const upload = (who: Staff, csv: string | Uint8Array, csrf = who.csrf) => {
    const form = new FormData();
    if (csrf) form.set('_csrf', csrf);
    form.set('csv', new Blob([csv], { type: 'text/csv' }), 'lists.csv');
    return fetch(`${portal.url}/lists/upload`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: who.cookie },
      body: form,
    });
  };
  const values = async (who: Staff) => (await store.list(who.orgId)).map((e) => `${e.kind} ${e.value}`);
  const entry = { kind: 'cidr', value: '203.0.113.0/24', effect: 'deny', reason: '<b>card testing</b>' };

  it('is behind the session: signed out, pages redirect to sign-in and changes are refused', async () => {
    for (const path of ['/lists', '/lists.csv']) {
      const res = await fetch(`${portal.url}${path}`, { redirect: 'manual' });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/signin');
    }
    for (const path of ['/lists', '/lists/remove']) {
      const res = await fetch(`${portal.url}${path}`, {
        method: 'POST',
        headers: FORM,
        body: new URLSearchParams({ ...entry, _csrf: a.csrf }),
      });
      expect(res.status).toBe(401);
    }
    const form = new FormData();
    form.set('_csrf', a.csrf);
    form.set('csv', new Blob([`${HEADER}\r\n`]), 'lists.csv');
    expect((await fetch(`${portal.url}/lists/upload`, { method: 'POST', body: form })).status).toBe(401);
    expect(await values(a)).toEqual([]);
  });

  it('adds an entry as the signed-in user, shows it escaped, removes it; refusals change nothing', async () => {
    const empty = await (await get(a)).text();
    expect(empty).toContain('<a href="/lists">Lists</a>');
    expect(empty).toContain('The list is empty.');

    // Without the session's CSRF token: refused, nothing added.
    expect((await post(a, '/lists', entry, '')).status).toBe(403);
    expect((await post(a, '/lists', entry, 'x'.repeat(a.csrf.length))).status).toBe(403);
    expect(await values(a)).toEqual([]);

    const added = await post(a, '/lists', { ...entry, expires_at: '2099-01-31' });
    expect(added.status).toBe(303);
    expect(added.headers.get('location')).toBe('/lists');
    const [stored] = await store.list(a.orgId);
    expect(stored).toMatchObject({
      ...entry,
      expires_at: '2099-01-31T00:00:00.000Z',
      added_by: `user:${a.email}`,
    });
    const page = await (await get(a)).text();
    expect(page).toContain('Added: deny cidr 203.0.113.0/24');
    expect(page).toContain('&lt;b&gt;card testing&lt;/b&gt;');
    expect(page).not.toContain('<b>card testing</b>');
    expect(page).toContain(`user:${a.email}`);
    expect(page).toContain('<code>203.0.113.0/24</code>');
    // The notice is shown once.
    expect(await (await get(a)).text()).not.toContain('Added: deny');

    // A value its kind refuses: the page again (422) with the problem on its field and what was
    // typed kept; nothing added.
    const refused = await post(a, '/lists', { ...entry, value: '10.0.0.1/8', expires_at: '' });
    expect(refused.status).toBe(422);
    const refusedPage = await refused.text();
    expect(refusedPage).toContain('<a href="#value">Value &quot;10.0.0.1/8&quot;: ');
    expect(refusedPage).toMatch(/id="value"[^>]*value="10\.0\.0\.1\/8"/);
    expect(refusedPage).toContain('aria-invalid="true" aria-describedby="value-error"');
    for (const bad of [
      { ...entry, expires_at: '2001-01-01' },
      { ...entry, kind: 'url' },
      { ...entry, reason: '' },
    ])
      expect((await post(a, '/lists', bad)).status).toBe(422);
    const repeated = await fetch(`${portal.url}/lists`, {
      method: 'POST',
      headers: { ...FORM, cookie: a.cookie },
      body: `_csrf=${encodeURIComponent(a.csrf)}&kind=ip&value=192.0.2.1&value=192.0.2.2&effect=deny&reason=x&expires_at=`,
    });
    expect(repeated.status).toBe(422);
    expect(await repeated.text()).toContain('Value was sent 2 times; send it once.');
    expect(await values(a)).toEqual(['cidr 203.0.113.0/24']);

    // Another organisation's staff see none of it, and cannot remove it.
    expect(await (await get(b)).text()).toContain('The list is empty.');
    expect(await (await get(b, '/lists.csv')).text()).toBe(`${HEADER},added_by,added_at\r\n`);
    expect((await post(b, '/lists/remove', { kind: 'cidr', value: '203.0.113.0/24' })).status).toBe(303);
    expect(await (await get(b)).text()).toContain('The list holds no entry cidr 203.0.113.0/24');
    expect(await values(a)).toEqual(['cidr 203.0.113.0/24']);

    const removed = await post(a, '/lists/remove', { kind: 'cidr', value: '203.0.113.0/24' });
    expect(removed.status).toBe(303);
    expect(await (await get(a)).text()).toContain('Removed: cidr 203.0.113.0/24');
    expect(await values(a)).toEqual([]);
  });

  it('replaces the whole list from a CSV: refused whole naming its bad lines, or applied whole; downloads it', async () => {
    await store.add(
      a.orgId,
      [{ kind: 'asn', value: 'AS64500', effect: 'deny', reason: 'before' }],
      'operator:test',
    );
    const version = await store.version(a.orgId);
    const lines = Array.from({ length: 262 }, (_, i) => `ip,192.0.2.${i},deny,upload,`);
    // 262 lines, 6 of them bad (addresses past .255): named with their line numbers, nothing changed.
    const refused = await upload(a, [HEADER, ...lines].join('\r\n'));
    expect(refused.status).toBe(422);
    const report = await refused.text();
    expect(report).toContain('The list was not changed');
    expect(report).toContain('6 bad lines');
    expect(report).toContain('Line 258: ');
    expect([...report.matchAll(/<li>Line /g)]).toHaveLength(6);
    expect(await store.version(a.orgId)).toBe(version);

    // More than 100 bad lines: the first 100 listed, the count given.
    const worse = await upload(
      a,
      [HEADER, ...Array.from({ length: 150 }, (_, i) => `ip,nope-${i},deny,x,`)].join('\n'),
    );
    const worseReport = await worse.text();
    expect(worseReport).toContain('150 bad lines; the first 100 are listed');
    expect([...worseReport.matchAll(/<li>Line /g)]).toHaveLength(100);
    // Without the CSRF token, or without a file: refused, nothing changed.
    expect((await upload(a, `${HEADER}\r\n`, '')).status).toBe(403);
    expect((await upload(a, '')).status).toBe(422);
    expect(await store.version(a.orgId)).toBe(version);

    const good = [HEADER, ...lines.slice(0, 200), 'phone,+447911123456,allow,"our line, ""main""",'].join(
      '\r\n',
    );
    // A spreadsheet's byte order mark is no part of the header.
    const applied = await upload(a, `\ufeff${good}`);
    expect(applied.status).toBe(303);
    const replacedPage = await (await get(a)).text();
    expect(
      replacedPage,
      replacedPage.slice(replacedPage.indexOf('<main'), replacedPage.indexOf('<main') + 1500),
    ).toContain('The list was replaced: it holds 201 entries (it held 1)');
    const held = await store.list(a.orgId);
    expect(held).toHaveLength(201);
    expect(held.every((e) => e.added_by === `user:${a.email}`)).toBe(true);

    const csv = await get(a, '/lists.csv');
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="lists.csv"');
    const text = await csv.text();
    expect(text.split('\r\n')).toHaveLength(203);
    expect(text).toContain('"our line, ""main"""');
    // The download uploads again as it is.
    expect((await upload(a, text)).status).toBe(303);
    expect(await store.list(a.orgId)).toHaveLength(201);
  });

  it('shows the entries 50 to a page, filtered by kind and effect', async () => {
    const who = await staff();
    const entries: ListEntryInput[] = Array.from({ length: 120 }, (_, i) => ({
      kind: 'ip',
      value: `198.51.100.${i}`,
      effect: i < 100 ? 'deny' : 'allow',
      reason: `entry ${i}`,
    }));
    await store.add(
      who.orgId,
      [...entries, { kind: 'asn', value: 'AS65001', effect: 'allow', reason: 'x' }],
      'operator:test',
    );
    const rows = (html: string) => [...html.matchAll(/<tr data-entry="([^"]+)"/g)].map((m) => m[1]!);
    const next = (html: string) => /id="next-page" href="([^"]+)"|href="([^"]+)" id="next-page"/.exec(html);

    const first = await (await get(who)).text();
    expect(first).toContain('121 entries.');
    expect(rows(first)).toHaveLength(50);
    const seen = [...rows(first)];
    let link = next(first);
    while (link) {
      const html = await (await get(who, (link[1] ?? link[2]!).replaceAll('&amp;', '&'))).text();
      expect(html).toContain('id="first-page"');
      seen.push(...rows(html));
      link = next(html);
    }
    expect(seen).toHaveLength(121);
    expect(new Set(seen).size).toBe(121);

    const allowed = await (await get(who, '/lists?effect=allow')).text();
    expect(allowed).toContain('21 entries match the filter.');
    const asns = await (await get(who, '/lists?kind=asn&effect=allow')).text();
    expect(rows(asns)).toEqual(['asn:AS65001']);
  });

  it('refuses an upload past 10 MiB before reading it, changing nothing', async () => {
    const version = await store.version(a.orgId);
    const socket = connect(Number(new URL(portal.url).port), '127.0.0.1');
    await once(socket, 'connect');
    let got = '';
    socket.on('data', (d: Buffer) => (got += d.toString('utf8')));
    socket.on('error', () => undefined);
    const closed = once(socket, 'close');
    socket.write(
      `POST /lists/upload HTTP/1.1\r\nHost: portal\r\nCookie: ${a.cookie}\r\n` +
        `Content-Type: multipart/form-data; boundary=x\r\nContent-Length: ${11 * 1024 * 1024}\r\n\r\n--x\r\n`,
    );
    await closed;
    expect(got).toMatch(/^HTTP\/1\.1 413/);
    expect(got).toContain('larger than 10 MiB');
    expect(await store.version(a.orgId)).toBe(version);
  });
});
