import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ScoreResponse } from '../../shared/contract/response.ts';
import { REASON_CODES, type ReasonCode } from '../../shared/scoring/reason-codes.ts';
import { launchChromium } from '../helpers/browser.ts';
import { checkPage, PHONE_WIDTH } from '../helpers/page-checks.ts';
import { admin, scoreCall } from '../../infra/harness/fixtures.ts';
import { postSignin, signinForm, startPortal, type PortalNode } from '../helpers/portal.ts';
import { startActivitySink, startApi, type ApiNode, type Service } from '../../infra/harness/processes.ts';
import { sinkGroupAtEnd } from '../../infra/harness/sink-group.ts';
import { observeFor, untilTime, waitFor } from '../../infra/harness/wait.ts';

const PASSWORD = 'correct horse battery staple';
/** A client address of its own per test run, so sign-in counts of earlier runs do not matter. */
const clientIp = () => `10.${[0, 0, 0].map(() => Math.floor(Math.random() * 250) + 1).join('.')}`;

interface Account {
  orgId: string;
  email: string;
  setupUrl: string;
}

async function account(portal: PortalNode, tier: string): Promise<Account> {
  const org = await admin('org', 'create', '--name', `portal-${tier}`, '--tier', tier);
  const email = `staff-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const user = await admin('user', 'create', '--org', String(org.org_id), '--email', email);
  expect(String(user.setup_url).startsWith(`${portal.url}/setup?token=`)).toBe(true);
  return { orgId: String(org.org_id), email, setupUrl: String(user.setup_url) };
}

/**
 * Every page: axe-core finds no serious or critical violation, and at a phone's width the page
 * does not scroll sideways. Screenshots at both widths (docs/portal with PORTAL_DOC_SHOTS=1).
 */
async function expectGoodPage(page: Page, name: string): Promise<void> {
  const { violations, phoneWidth } = await checkPage(page, name);
  expect(violations, name).toEqual([]);
  expect(phoneWidth, `${name} at ${PHONE_WIDTH} px`).toBeLessThanOrEqual(PHONE_WIDTH);
}

/** Follows the setup link in a fresh browser context, chooses the password, lands signed in. */
async function setUp(
  browser: Browser,
  a: Account,
  check = false,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(a.setupUrl);
  if (check) await expectGoodPage(page, 'setup');
  await page.fill('input[name=password]', PASSWORD);
  await page.fill('input[name=confirm]', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL('**/activity');
  return { context, page };
}

describe('the portal in headless Chromium, against real API nodes and the score stream', () => {
  let browser: Browser;
  let apis: ApiNode[] = [];
  let portal: PortalNode;
  let sink: Service;

  beforeAll(async () => {
    // The audit sink keeps the Activity page, in a group of its own at the end of scores.v1.
    sink = await startActivitySink(await sinkGroupAtEnd());
    // Two API nodes: a revocation must reach every node. Last-used times flush every 0.5 s here.
    apis = await Promise.all(
      ['portal-api-1', 'portal-api-2'].map((id) => startApi({ NODE_ID: id, KEY_USAGE_FLUSH_S: '0.5' })),
    );
    portal = await startPortal({
      PORTAL_SIGNIN_MAX_PER_EMAIL: '5',
      PORTAL_SIGNIN_MAX_PER_IP: '12',
      PORTAL_SIGNIN_MAX_PER_IP_EMAIL: '5',
      // One window for the whole run, so no count resets half-way through a test.
      PORTAL_SIGNIN_WINDOW_S: '86400',
      PORTAL_TRUST_PROXY: 'loopback',
    });
    process.env.PORTAL_URL = portal.url; // the admin CLI builds setup links from it
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await portal?.stop();
    await sink?.stop();
    await Promise.all(apis.map((a) => a.stop()));
  });

  it('signs in, creates a key, sees its score live, explains it, revokes it; another org sees none of it', async () => {
    const a = await account(portal, 'assess');
    const b = await account(portal, 'bureau');
    const { page } = await setUp(browser, a, true);
    await expectGoodPage(page, 'activity-empty');

    // A setup link works once.
    const reused = await fetch(a.setupUrl);
    expect(reused.status).toBe(404);

    // Keys: create one with a label; the full key is shown once, with a warning and a copy button.
    await page.goto(`${portal.url}/keys`);
    // First use: the empty page says what a key is for and shows a call to copy.
    expect(await page.textContent('#first-use')).toContain('create your first API key');
    await expectGoodPage(page, 'keys-empty');
    await page.fill('input[name=label]', 'checkout <service>');
    await page.click('form[action="/keys"] button[type=submit]');
    const apiKey = await page.inputValue('#new-key-value');
    expect(apiKey).toMatch(/^frs_live_[0-9A-Za-z]{32}$/);
    expect(await page.textContent('#new-key .warning')).toContain('shown only this once');
    expect(await page.locator('#new-key button[data-copy="new-key-value"]').count()).toBe(1);
    const row = page.locator('#keys tbody tr').first();
    const keyId = (await row.getAttribute('data-key-id'))!;
    // The label is escaped, not markup; the row shows the key's first characters only.
    expect(await row.locator('td').first().textContent()).toBe('checkout <service>');
    expect(await row.textContent()).toContain(`${apiKey.slice(0, 13)}…`);
    expect(await row.textContent()).not.toContain(apiKey);
    expect(await row.locator('td.last-used').textContent()).toBe('never');
    expect(await page.textContent('#new-key-curl')).toContain(`Bearer ${apiKey}`);
    await expectGoodPage(page, 'keys-created');
    // POST-redirect-GET: the key was shown on a GET page, so a reload (or back, then forward)
    // creates no second key and does not show this one again.
    expect(page.url()).toBe(`${portal.url}/keys`);
    await page.reload();
    expect(await page.content()).not.toContain(apiKey);
    await page.goBack();
    await page.goForward();
    expect(((await admin('key', 'list', '--org', a.orgId)).keys as unknown[]).length).toBe(1);
    expect(await page.locator('#keys tbody tr[data-key-id]').count()).toBe(1);

    // Activity: open the page, then score; the row appears without a reload, within 2 s of the 200.
    await page.goto(`${portal.url}/activity`);
    const res = await scoreCall(apis[0]!.url, apiKey, {
      subject: { phone_number: '+447911123456', ip_address: '81.2.69.142' },
    });
    expect(res.status).toBe(200);
    const scoredAt = Date.now();
    const score = ScoreResponse.parse(await res.json());
    const scoreRow = page.locator(`tr[data-score-id="${score.score_id}"]`);
    await scoreRow.waitFor({ timeout: 2_000 });
    console.log(`[portal] score on the Activity page ${Date.now() - scoredAt} ms after the 200`);
    const cells = (await scoreRow.locator('td').allTextContents()).map((c) => c.trim());
    expect(cells[1]).toBe(score.score_id);
    expect(cells[2]).not.toContain('+447911123456'); // masked until revealed
    expect(cells[2]).toContain('+44');
    expect(cells[3]).toBe(String(score.score));
    expect(cells[4]).toBe(score.band);
    expect(cells[5]).toBe(score.recommended_action);
    // The usage panel refreshes every 2 s, rows every 0.5 s.
    await waitFor(
      'the usage panel to count it',
      async () => (await page.textContent('#usage-today')) === '1',
    );
    expect(await page.textContent('#usage-credits')).toContain('1 used of');
    expect(await page.textContent('#usage-rate')).toContain('50 requests/s');
    await expectGoodPage(page, 'activity');

    // While scores flow, the rows already shown are left alone: a row the user selected and the
    // link they focused stay selected and focused while 20 more scores arrive above them.
    await scoreRow.locator('a').focus();
    // Browser-side code as text: this project compiles without the DOM's types.
    const rowJs = `document.querySelector('tr[data-score-id="${score.score_id}"]')`;
    await page.evaluate(`${rowJs}.marked = true; document.getSelection().selectAllChildren(${rowJs})`);
    for (let i = 0; i < 20; i++)
      expect(
        (await scoreCall(apis[i % 2]!.url, apiKey, { subject: { ip_address: '81.2.69.142' } })).status,
      ).toBe(200);
    await waitFor(
      '20 more rows on the Activity page',
      async () => (await page.locator('#activity tbody tr').count()) === 21,
      10_000,
    );
    const kept = (await page.evaluate(
      `({ sameRow: ${rowJs}.marked === true, focused: ${rowJs}.contains(document.activeElement),
          selected: document.getSelection().toString() })`,
    )) as { sameRow: boolean; focused: boolean; selected: string };
    expect(kept.sameRow).toBe(true);
    expect(kept.focused).toBe(true);
    expect(kept.selected).toContain(score.score_id);
    expect(await page.locator('#activity tbody tr').first().getAttribute('data-score-id')).not.toBe(
      score.score_id,
    );
    // The hourly chart counts them in this UTC hour, by band (server-rendered SVG).
    await waitFor('the chart to count 21 scores', async () =>
      /21 scores today/.test((await page.textContent('#usage-chart figcaption')) ?? ''),
    );
    expect(
      await page.locator('#usage-chart svg g title').nth(new Date().getUTCHours()).textContent(),
    ).toContain('21 scores (');
    // Paused, no row arrives; resumed, it does.
    expect(await page.textContent('#live-status')).toContain('Live');
    await page.click('#live-toggle');
    expect(await page.getAttribute('#live-toggle', 'aria-pressed')).toBe('true');
    const whilePaused = ScoreResponse.parse(
      await (await scoreCall(apis[0]!.url, apiKey, { subject: { ip_address: '81.2.69.142' } })).json(),
    );
    await observeFor(1_500);
    expect(await page.locator(`tr[data-score-id="${whilePaused.score_id}"]`).count()).toBe(0);
    await page.click('#live-toggle');
    await page.locator(`tr[data-score-id="${whilePaused.score_id}"]`).waitFor({ timeout: 2_000 });

    await page.goto(`${portal.url}/activity?reveal=1`);
    expect(await page.locator(`tr[data-score-id="${score.score_id}"]`).textContent()).toContain(
      '+447911123456',
    );
    const otherBand = score.band === 'minimal' ? 'critical' : 'minimal';
    await page.goto(`${portal.url}/activity?band=${otherBand}`);
    expect(await page.locator(`tr[data-score-id="${score.score_id}"]`).count()).toBe(0);
    await page.goto(`${portal.url}/activity?band=${score.band}`);
    expect(await page.locator(`tr[data-score-id="${score.score_id}"]`).count()).toBe(1);

    // The explain view: the subject masked everywhere on the page (the evidence's and the
    // response's resolution, the request) until revealed.
    await page.click(`tr[data-score-id="${score.score_id}"] a`);
    await page.waitForURL(`**/scores/${score.score_id}`);
    const masked = await page.content();
    for (const clear of ['+447911123456', '447911123456', '7911123456', '81.2.69.142'])
      expect(masked).not.toContain(clear);
    expect(await page.textContent('#explain-evidence')).toContain('+44••••••••56');
    // In words: outcome, one row per component explained from the reason-code registry, the
    // subject resolution as a list; the raw JSON only behind a toggle.
    expect(await page.textContent('#explain-score')).toBe(String(score.score));
    expect(await page.textContent('#explain-outcome .band')).toBe(score.band);
    const components = score.components ?? [];
    expect(components.length).toBeGreaterThan(0);
    expect(await page.locator('#explain-components tbody tr[data-component]').count()).toBe(
      components.length,
    );
    for (const c of components) {
      const row = page.locator(`#explain-components tr[data-component="${c.component}"]`);
      const text = (await row.innerText()).replace(/\s+/g, ' ');
      if (c.detail) expect(text).toContain(REASON_CODES[c.detail as ReasonCode]);
      expect(text).toContain(String(c.contribution));
    }
    expect(await page.textContent('#explain-phone')).toContain('+44••••••••56');
    expect(await page.locator('#explain-evidence').isVisible()).toBe(false);
    await page.click('details summary');
    expect(await page.locator('#explain-evidence').isVisible()).toBe(true);
    await expectGoodPage(page, 'explain');
    // Revealed, it shows what GET /v1/explain returns.
    await page.goto(`${portal.url}/scores/${score.score_id}?reveal=1`);
    const viaApi = (await (
      await fetch(`${apis[1]!.url}/v1/explain/${score.score_id}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      })
    ).json()) as { evidence: unknown; response: unknown };
    expect(JSON.parse((await page.textContent('#explain-evidence'))!)).toEqual(viaApi.evidence);
    expect(JSON.parse((await page.textContent('#explain-response'))!)).toEqual(viaApi.response);
    expect(await page.textContent('#explain-request')).toContain('+447911123456');

    // "Last used" comes from the API nodes' periodic flush.
    await waitFor('last used on the Keys page', async () => {
      await page.goto(`${portal.url}/keys`);
      return (await page.locator(`tr[data-key-id="${keyId}"] td.last-used`).textContent()) !== 'never';
    });
    await expectGoodPage(page, 'keys');

    // Isolation: org B's user sees none of org A's keys or scores and cannot act on them.
    const other = await setUp(browser, b);
    expect(await other.page.content()).not.toContain(score.score_id);
    expect(await other.page.textContent('#usage-today')).toBe('0');
    await other.page.goto(`${portal.url}/keys`);
    expect(await other.page.content()).not.toContain(keyId);
    expect((await other.page.goto(`${portal.url}/scores/${score.score_id}`))!.status()).toBe(404);
    expect((await other.page.goto(`${portal.url}/keys/${keyId}/revoke`))!.status()).toBe(404);
    const bCookies = await other.context.cookies();
    const bSession = bCookies.find((c) => c.name === 'frs_session')!.value;
    await other.page.goto(`${portal.url}/keys`);
    const bCsrf = await other.page.getAttribute('form[action="/keys"] input[name=_csrf]', 'value');
    const crossRevoke = await fetch(`${portal.url}/keys/${keyId}/revoke`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `frs_session=${bSession}` },
      body: new URLSearchParams({ _csrf: bCsrf! }),
    });
    expect(crossRevoke.status).toBe(404);
    expect((await scoreCall(apis[0]!.url, apiKey, { subject: { ip_address: '81.2.69.142' } })).status).toBe(
      200,
    );

    // An API key opens no page; a session cookie calls no API.
    const withKey = await fetch(`${portal.url}/keys`, {
      redirect: 'manual',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(withKey.status).toBe(303);
    expect(withKey.headers.get('location')).toBe('/signin');
    const aSession = (await page.context().cookies()).find((c) => c.name === 'frs_session')!.value;
    const withCookie = await scoreCall(
      apis[0]!.url,
      '',
      { subject: { ip_address: '81.2.69.142' } },
      {
        authorization: '',
        cookie: `frs_session=${aSession}`,
      },
    );
    expect(withCookie.status).toBe(401);

    // Revoke with a confirmation; within a second every API node answers 401.
    await page.goto(`${portal.url}/keys`);
    await page.click(`tr[data-key-id="${keyId}"] a.danger`);
    await page.waitForURL(`**/keys/${keyId}/revoke`);
    expect(await page.locator('main').innerText()).toContain('cannot be undone');
    await expectGoodPage(page, 'revoke');
    await page.click('#confirm-revoke');
    await page.waitForURL('**/keys');
    expect(await page.textContent('p.notice')).toContain('is revoked');
    expect(await page.getAttribute(`tr[data-key-id="${keyId}"] td.status`, 'data-status')).toBe('revoked');
    // The bound the portal promises: within a second every node refuses (waitFor fails past it).
    await waitFor(
      'every API node to refuse the revoked key',
      async () => {
        for (const api of apis) {
          const refused = await scoreCall(api.url, apiKey, { subject: { ip_address: '81.2.69.142' } });
          if (refused.status !== 401) return false;
        }
        return true;
      },
      1_000,
      50,
    );

    // Sign-out ends the session in Redis, not only in the browser.
    await page.click('header button[type=submit]');
    await page.waitForURL('**/signin');
    await expectGoodPage(page, 'signin');
    await page.click('a[href="/forgot"]');
    expect(await page.textContent('main')).toContain("organisation's portal admin");
    await expectGoodPage(page, 'forgot');
    const after = await fetch(`${portal.url}/keys`, {
      redirect: 'manual',
      headers: { cookie: `frs_session=${aSession}` },
    });
    expect(after.status).toBe(303);
    await other.context.close();
  });

  it('shows a refused form in the error style, with a summary; works from the keyboard alone', async () => {
    const a = await account(portal, 'verify');
    const { context, page } = await setUp(browser, a);
    await page.goto(`${portal.url}/keys`);
    // Keyboard only: Tab to the label field, type, Enter submits.
    const tabTo = async (selector: string) => {
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        if (await page.locator(selector).evaluate((el) => el === el.ownerDocument.activeElement)) return;
      }
      throw new Error(`${selector} not reachable with Tab`);
    };
    // A label the store refuses (longer than 64 characters; the field's own limit lifted).
    await page.locator('#label').evaluate((el) => el.removeAttribute('maxlength'));
    await tabTo('#label');
    await page.keyboard.type('x'.repeat(70));
    await page.keyboard.press('Enter');
    // The URL stays /keys (POST, then 303 to it): wait for the new page itself.
    const summary = page.locator('.error-summary');
    await summary.waitFor();
    await page.waitForLoadState('load');
    expect(await summary.textContent()).toContain('at most 64 characters');
    // The error style, not the success one: a red border, the field marked invalid, no notice.
    expect(
      await page.evaluate("getComputedStyle(document.querySelector('.error-summary')).borderTopColor"),
    ).toBe('rgb(180, 35, 24)');
    expect(await page.getAttribute('#label', 'aria-invalid')).toBe('true');
    expect(await page.locator('p.notice').count()).toBe(0);
    expect(await summary.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await expectGoodPage(page, 'keys-error');
    // Shown once: a reload shows the form clean.
    await page.reload();
    expect(await page.locator('.error-summary').count()).toBe(0);

    // Create and revoke with the keyboard only.
    await tabTo('#label');
    await page.keyboard.type('keyboard');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/keys');
    expect(await page.inputValue('#new-key-value')).toMatch(/^frs_live_/);
    await tabTo('#keys a.danger');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/revoke');
    await tabTo('#confirm-revoke');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/keys');
    expect(await page.getAttribute('#keys td.status', 'data-status')).toBe('revoked');
    await context.close();
  });

  it('manages the lists: add, remove, a CSV refused then applied, download; keyboard, 390 px, axe, no script errors', async () => {
    const a = await account(portal, 'verify');
    const { context, page } = await setUp(browser, a);
    const scriptErrors: string[] = [];
    page.on('pageerror', (err) => scriptErrors.push(err.message));
    // A 422 page or a missing favicon is logged as a failed load: an answer, not a script error.
    page.on(
      'console',
      (m) =>
        void (
          m.type() === 'error' &&
          !m.text().startsWith('Failed to load resource') &&
          scriptErrors.push(m.text())
        ),
    );
    const tabTo = async (selector: string) => {
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press('Tab');
        if (await page.locator(selector).evaluate((el) => el === el.ownerDocument.activeElement)) return;
      }
      throw new Error(`${selector} not reachable with Tab`);
    };
    await page.click('nav a[href="/lists"]');
    await page.waitForURL('**/lists');
    expect(await page.textContent('#no-entries')).toContain('The list is empty.');
    await expectGoodPage(page, 'lists-empty');

    // Keyboard only: a deny entry for a range, Enter from the last field submits.
    await tabTo('#kind');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown'); // phone → prefix → ip → cidr
    expect(await page.inputValue('#kind')).toBe('cidr');
    await tabTo('#value');
    await page.keyboard.type('203.0.113.0/24');
    await tabTo('#reason');
    await page.keyboard.type('card testing <script>');
    await page.keyboard.press('Enter');
    const row = page.locator('tr[data-entry="cidr:203.0.113.0/24"]');
    await row.waitFor();
    expect(await page.textContent('p.notice')).toContain('Added: deny cidr 203.0.113.0/24');
    expect(await row.locator('td').nth(3).textContent()).toBe('card testing <script>');
    expect(await row.textContent()).toContain(`user:${a.email}`);
    await expectGoodPage(page, 'lists');

    // A value its kind refuses: the error style, the field marked, what was typed kept.
    await page.fill('#value', '10.0.0.1/8');
    await page.selectOption('#kind', 'cidr');
    await page.fill('#reason', 'host bits');
    await page.click('#add-entry button[type=submit]');
    await page.locator('.error-summary').waitFor();
    expect(await page.textContent('.error-summary')).toContain('host bits set');
    expect(await page.getAttribute('#value', 'aria-invalid')).toBe('true');
    expect(await page.inputValue('#value')).toBe('10.0.0.1/8');
    expect(await page.locator('.error-summary').evaluate((el) => el === el.ownerDocument.activeElement)).toBe(
      true,
    );
    await expectGoodPage(page, 'lists-error');

    // A CSV with bad lines: refused whole, each named with its line; the list is as it was.
    await page.goto(`${portal.url}/lists`);
    const csv = (lines: string[]) => ({
      name: 'lists.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(['kind,value,effect,reason,expires_at', ...lines].join('\r\n')),
    });
    await page.setInputFiles(
      '#csv',
      csv(['ip,192.0.2.1,deny,ok,', 'ip,192.0.2.300,deny,bad,', 'asn,ASX,deny,bad,']),
    );
    await page.click('#upload-list button[type=submit]');
    await page.locator('#upload-report').waitFor();
    expect(await page.locator('#upload-report li').allTextContents()).toEqual([
      expect.stringMatching(/^Line 3: /),
      expect.stringMatching(/^Line 4: /),
    ]);
    expect(await page.textContent('.error-summary')).toContain('2 bad lines');
    expect(await row.count()).toBe(1);
    await expectGoodPage(page, 'lists-upload-refused');

    // Without them it replaces the whole list.
    await page.setInputFiles('#csv', csv(['ip,192.0.2.1,deny,ok,', 'phone,+447911123456,allow,our line,']));
    await page.click('#upload-list button[type=submit]');
    await page.waitForURL('**/lists');
    expect(await page.textContent('p.notice')).toContain('it holds 2 entries (it held 1)');
    expect(await page.locator('#entries tbody tr').count()).toBe(2);

    // The download is the list as CSV.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('a[href="/lists.csv"]')]);
    const file = await download.path();
    const text = readFileSync(file, 'utf8');
    expect(text.split('\r\n')[0]).toBe('kind,value,effect,reason,expires_at,added_by,added_at');
    expect(text).toContain('phone,+447911123456,allow,our line,,');

    // Remove with the keyboard: the row's button, then Enter.
    await tabTo('tr[data-entry="ip:192.0.2.1"] button.danger');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/lists');
    await page.locator('p.notice').waitFor();
    expect(await page.textContent('p.notice')).toContain('Removed: ip 192.0.2.1');
    expect(await page.locator('#entries tbody tr').count()).toBe(1);
    expect(scriptErrors).toEqual([]);
    await context.close();
  });

  it('rolls a key: the new key works at once, the old one until the overlap ends, then on no node', async () => {
    const a = await account(portal, 'verify');
    const { context, page } = await setUp(browser, a);
    await page.goto(`${portal.url}/keys`);
    await page.fill('#label', 'billing');
    await page.click('form[action="/keys"] button[type=submit]');
    const oldKey = await page.inputValue('#new-key-value');
    const oldId = (await page.getAttribute('#keys tbody tr', 'data-key-id'))!;
    const score = (api: ApiNode, key: string) =>
      scoreCall(api.url, key, { subject: { ip_address: '81.2.69.142' } }).then((r) => r.status);
    // Both nodes hold the key in their replicas before the roll.
    for (const api of apis) expect(await score(api, oldKey)).toBe(200);

    await page.click(`tr[data-key-id="${oldId}"] a.roll`);
    await page.waitForURL(`**/keys/${oldId}/roll`);
    await expectGoodPage(page, 'roll');
    // A 3-second overlap (the page offers hours and days; the server takes any span up to 7 days).
    const OVERLAP_MS = 3_000;
    await page.evaluate(
      `document.querySelector('#overlap_s').append(new Option('3 seconds', '${OVERLAP_MS / 1000}'))`,
    );
    await page.selectOption('#overlap_s', String(OVERLAP_MS / 1000));
    const rolledAt = Date.now();
    await page.click('#confirm-roll');
    await page.waitForURL('**/keys');
    const newKey = await page.inputValue('#new-key-value');
    expect(newKey).not.toBe(oldKey);
    expect(await page.textContent('p.notice')).toContain('is rolled');
    expect(await page.getAttribute(`tr[data-key-id="${oldId}"] td.status`, 'data-status')).toBe('ending');
    // During the overlap both keys work on both nodes.
    for (const api of apis) {
      expect(await score(api, newKey)).toBe(200);
      expect(await score(api, oldKey)).toBe(200);
    }
    expect(Date.now() - rolledAt).toBeLessThan(OVERLAP_MS);
    // At its end every node refuses the old key (within 0.5 s of it), the new one goes on.
    await untilTime(rolledAt + OVERLAP_MS);
    await waitFor(
      'every API node to refuse the rolled key',
      async () => {
        for (const api of apis) if ((await score(api, oldKey)) !== 401) return false;
        return true;
      },
      500,
      50,
    );
    for (const api of apis) expect(await score(api, newKey)).toBe(200);
    // The list sorts by a column from its header (a link), and says so to assistive technology.
    await page.click('th a.sort:has-text("Label")');
    expect(await page.getAttribute('th[aria-sort="descending"]', 'aria-sort')).toBe('descending');
    expect(page.url()).toContain('sort=label');
    // And the old key is revoked for good.
    await waitFor('the rolled key revoked', async () => {
      await page.goto(`${portal.url}/keys`);
      return (await page.getAttribute(`tr[data-key-id="${oldId}"] td.status`, 'data-status')) === 'revoked';
    });
    await context.close();
  });

  it("recovers a forgotten password through the organisation's admin, never across organisations", async () => {
    const org = await admin('org', 'create', '--name', 'portal-team', '--tier', 'verify');
    const orgId = String(org.org_id);
    const mail = (who: string) =>
      `${who}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.test`;
    const adminUser = await admin('user', 'create', '--org', orgId, '--email', mail('admin'), '--admin');
    expect(adminUser.role).toBe('admin');
    const colleague = await admin('user', 'create', '--org', orgId, '--email', mail('member'));
    const stranger = await account(portal, 'verify');
    const a = { orgId, email: String(adminUser.email), setupUrl: String(adminUser.setup_url) };
    const { context, page } = await setUp(browser, a);

    await page.goto(`${portal.url}/team`);
    await expectGoodPage(page, 'team');
    // Another organisation's user is answered like an unknown email.
    await page.fill('#email', stranger.email);
    await page.click('form[action="/team/link"] button[type=submit]');
    await page.locator('.error-summary').waitFor();
    expect(await page.textContent('.error-summary')).toContain(
      'no portal user with that email in your organisation',
    );
    expect((await fetch(stranger.setupUrl)).status).toBe(200); // untouched
    // A colleague gets a new link, shown once; their earlier link stops working.
    await page.fill('#email', String(colleague.email));
    await page.click('form[action="/team/link"] button[type=submit]');
    const link = await page.inputValue('#setup-link-value');
    expect(link.startsWith(`${portal.url}/setup?token=`)).toBe(true);
    await expectGoodPage(page, 'team-link');
    expect((await fetch(String(colleague.setup_url))).status).toBe(404);
    const member = await setUp(browser, { orgId, email: String(colleague.email), setupUrl: link });
    expect(member.page.url()).toContain('/activity');

    // A member sees how to recover but cannot issue links, even by posting the form.
    await member.page.goto(`${portal.url}/team`);
    expect(await member.page.locator('form[action="/team/link"]').count()).toBe(0);
    expect(await member.page.textContent('main')).toContain('portal admins issue new setup links');
    const memberSession = (await member.context.cookies()).find((c) => c.name === 'frs_session')!.value;
    const memberCsrf = await member.page.getAttribute('header input[name=_csrf]', 'value');
    const refused = await fetch(`${portal.url}/team/link`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `frs_session=${memberSession}`,
      },
      body: new URLSearchParams({ _csrf: memberCsrf!, email: a.email }),
    });
    expect(refused.status).toBe(403);
    await member.context.close();
    await context.close();
  });

  it('refuses forms without the session CSRF token and changes nothing', async () => {
    const a = await account(portal, 'verify');
    const { context, page } = await setUp(browser, a);
    const session = (await context.cookies()).find((c) => c.name === 'frs_session')!;
    expect(session.httpOnly).toBe(true);
    expect(session.sameSite).toBe('Strict');
    await page.goto(`${portal.url}/keys`);
    const csrf = (await page.getAttribute('form[action="/keys"] input[name=_csrf]', 'value'))!;
    const post = (token?: string) =>
      fetch(`${portal.url}/keys`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: `frs_session=${session.value}`,
        },
        body: new URLSearchParams({ label: 'forged', ...(token === undefined ? {} : { _csrf: token }) }),
      });
    expect((await post()).status).toBe(403);
    expect((await post('x'.repeat(csrf.length))).status).toBe(403);
    const keys = await admin('key', 'list', '--org', a.orgId);
    expect(keys.keys).toEqual([]);
    // The same request with the token works: the refusal was the token's doing.
    const created = await post(csrf);
    expect(created.status).toBe(303);
    expect(created.headers.get('location')).toBe('/keys');
    expect(((await admin('key', 'list', '--org', a.orgId)).keys as unknown[]).length).toBe(1);

    // Without a session nothing changes either, whatever the token.
    const anonymous = await fetch(`${portal.url}/keys`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ label: 'anonymous', _csrf: csrf }),
    });
    expect(anonymous.status).toBe(401);
    // Behind a TLS proxy (trusted here from loopback) the cookies are Secure as well.
    const overTls = await fetch(`${portal.url}/signin`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(overTls.headers.getSetCookie().join(';')).toMatch(
      /frs_form=.*HttpOnly.*Secure|frs_form=.*Secure.*HttpOnly/,
    );
    expect(overTls.headers.get('content-security-policy')).toContain("default-src 'none'");

    // The sign-in form has its own (double-submit) token.
    const form = await signinForm(portal.url);
    const ip = clientIp();
    expect((await postSignin(portal.url, { ...form, csrf: 'forged' }, a.email, PASSWORD, ip)).status).toBe(
      403,
    );
    expect((await postSignin(portal.url, form, a.email, PASSWORD, ip)).status).toBe(303);
    await context.close();
  });

  it('admin CLI: user create refuses unknown organisations, bad and duplicate emails', async () => {
    const a = await account(portal, 'verify');
    const fails = async (...args: string[]) => {
      const err = await admin(...args).then(
        () => null,
        (e: { code?: number; stderr?: string }) => e,
      );
      expect(err?.code).toBe(2);
      return err!.stderr!;
    };
    expect(
      await fails('user', 'create', '--org', 'org_0000000000000000', '--email', 'x@example.test'),
    ).toContain('unknown organisation');
    expect(await fails('user', 'create', '--org', a.orgId, '--email', 'not-an-email')).toContain('--email');
    expect(await fails('user', 'create', '--org', a.orgId, '--email', a.email.toUpperCase())).toContain(
      'already exists',
    );
    const again = await admin('user', 'link', '--email', a.email);
    expect(String(again.setup_url)).toContain('/setup?token=');
    expect((await fetch(String(again.setup_url))).status).toBe(200);
  });

  it('rate-limits failed sign-ins per address and account and per client address', async () => {
    const a = await account(portal, 'verify');
    const c = await account(portal, 'verify');
    for (const acc of [a, c]) await (await setUp(browser, acc)).context.close();
    const form = await signinForm(portal.url);
    const ip = clientIp();

    // Per address and account: after 5 failures even the right password is refused there until the window ends.
    for (let i = 0; i < 5; i++)
      expect((await postSignin(portal.url, form, a.email, 'wrong password!', ip)).status).toBe(401);
    const limited = await postSignin(portal.url, form, a.email, PASSWORD, ip);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another account from the same address still signs in (12 per address).
    expect((await postSignin(portal.url, form, c.email, PASSWORD, ip)).status).toBe(303);

    // Per address: failures spread over unknown emails reach the address's limit of 12.
    for (let i = 0; i < 7; i++)
      expect(
        (await postSignin(portal.url, form, `nobody-${i}-${Date.now()}@example.test`, 'x', ip)).status,
      ).toBe(401);
    expect((await postSignin(portal.url, form, c.email, PASSWORD, ip)).status).toBe(429);
    // The same account from another address is not affected by this address's limit.
    expect((await postSignin(portal.url, form, c.email, PASSWORD, clientIp())).status).toBe(303);
  });
});
