/**
 * Portal input is refused, never changed: a form value that is too long, repeated or missing is
 * answered with a message naming the field, and nothing is created from it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrgStore } from '../../shared/orgs/store.ts';
import { redis } from '../../infra/harness/fixtures.ts';
import {
  completeSetup,
  cookiePair,
  newPortalUser,
  signinForm,
  startPortal,
  type PortalNode,
} from '../helpers/portal.ts';

const PASSWORD = 'correct horse battery staple';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('portal forms refuse input they would otherwise change', () => {
  let portal: PortalNode;
  const r = redis();
  let orgId: string;
  let email: string;
  let session: string;
  let csrf: string;

  beforeAll(async () => {
    portal = await startPortal();
    const user = await newPortalUser(r);
    ({ orgId, email } = user);
    session = cookiePair(await completeSetup(portal.url, user.setupToken, PASSWORD), 'frs_session')!;
    const page = await fetch(`${portal.url}/keys`, { headers: { cookie: session } });
    csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
  });

  afterAll(async () => {
    await portal?.stop();
    r.disconnect();
  });

  /** POSTs a raw urlencoded body to the keys page, then reads the page it redirects to. */
  async function postKeys(path: string, body: string): Promise<string> {
    const res = await fetch(`${portal.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...FORM, cookie: session },
      body: `_csrf=${encodeURIComponent(csrf)}&${body}`,
    });
    expect(res.status).toBe(303);
    return (await fetch(`${portal.url}/keys`, { headers: { cookie: session } })).text();
  }

  it.each([
    ['over 1,024 characters', `label=${'a'.repeat(1025)}`, 'Label: at most 64 characters.'],
    ['65 characters', `label=${'a'.repeat(65)}`, 'Label: at most 64 characters.'],
    ['sent twice', 'label=a&label=b', 'Label was sent 2 times; send it once.'],
    ['missing', 'other=1', 'Label is missing.'],
  ])('a key label %s is refused, naming the field, and creates no key', async (_what, body, message) => {
    const before = (await new OrgStore(r).listKeys(orgId)).length;
    const page = await postKeys('/keys', body);
    expect(page).toContain(message);
    expect((await new OrgStore(r).listKeys(orgId)).length).toBe(before);
  });

  it('a form whose percent-encoding does not decode is a 400 error page, and creates nothing', async () => {
    const before = (await new OrgStore(r).listKeys(orgId)).length;
    // A lone surrogate (ED A0 80), a byte that starts nothing, a cut sequence, a bare %.
    for (const label of ['a%ED%A0%80b', '%FF', 'caf%C3', '100%', '%zz']) {
      const res = await fetch(`${portal.url}/keys`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...FORM, cookie: session },
        body: `_csrf=${encodeURIComponent(csrf)}&label=${label}`,
      });
      expect(res.status, label).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain('The request was not valid.');
    }
    expect((await new OrgStore(r).listKeys(orgId)).length).toBe(before);
    // The same label properly encoded is created as typed.
    const page = await postKeys('/keys', `label=${encodeURIComponent('caf\u00e9 100%')}`);
    expect(page).toContain('caf\u00e9 100%');
    expect((await new OrgStore(r).listKeys(orgId)).map((k) => k.label)).toContain('caf\u00e9 100%');
  });

  it('a roll overlap sent twice or not a whole number is refused, naming the field', async () => {
    const { key_id } = await new OrgStore(r).createKey(orgId, 'to roll');
    expect(await postKeys(`/keys/${key_id}/roll`, 'overlap_s=60&overlap_s=0')).toContain(
      'Overlap was sent 2 times; send it once.',
    );
    expect(await postKeys(`/keys/${key_id}/roll`, 'overlap_s=1e3')).toContain('Overlap: choose how long');
    expect((await new OrgStore(r).getKey(key_id))?.status).toBe('active');
  });

  it('a sign-in with a repeated or over-long field is refused as sent (422), naming it', async () => {
    const post = async (body: string) => {
      const form = await signinForm(portal.url);
      const res = await fetch(`${portal.url}/signin`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...FORM, cookie: form.cookie },
        body: `_csrf=${encodeURIComponent(form.csrf)}&${body}`,
      });
      return { status: res.status, text: await res.text() };
    };
    const e = encodeURIComponent(email);
    const p = encodeURIComponent(PASSWORD);
    expect(await post(`email=${e}&email=${e}&password=${p}`)).toMatchObject({
      status: 422,
      text: expect.stringContaining('Email was sent 2 times; send it once.'),
    });
    expect(await post(`email=${'a'.repeat(255)}&password=${p}`)).toMatchObject({
      status: 422,
      text: expect.stringContaining('Email is too long: at most 254 characters.'),
    });
    expect(await post(`email=${e}&password=${p}&password=x`)).toMatchObject({
      status: 422,
      text: expect.stringContaining('Password was sent 2 times; send it once.'),
    });
    expect((await post(`email=${e}&password=${p}`)).status).toBe(303);
  });
});
