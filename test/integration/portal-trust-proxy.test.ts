import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redis } from '../../infra/harness/fixtures.ts';
import { nextWindow } from '../../infra/harness/wait.ts';
import {
  completeSetup,
  newPortalUser,
  postSignin,
  setCookies,
  signinForm,
  startPortal,
  type PortalNode,
} from '../helpers/portal.ts';

const PASSWORD = 'correct horse battery staple';
const TLS = { 'x-forwarded-proto': 'https' };
const clientIp = () => `203.0.113.${Math.floor(Math.random() * 250) + 1}`;

/** The session and form cookies of a completed setup, as sent. */
async function cookiesOfSetup(portal: PortalNode, headers: Record<string, string>) {
  const r = redis();
  try {
    const { setupToken } = await newPortalUser(r);
    const res = await completeSetup(portal.url, setupToken, PASSWORD, headers);
    expect(res.status).toBe(303);
    const form = setCookies(await fetch(`${portal.url}/signin`, { headers }));
    return { session: setCookies(res).get('frs_session')!, form: form.get('frs_form')! };
  } finally {
    r.disconnect();
  }
}

describe('PORTAL_TRUST_PROXY: Secure cookies behind a TLS-terminating proxy', () => {
  let trusting: PortalNode;
  let direct: PortalNode;

  beforeAll(async () => {
    [trusting, direct] = await Promise.all([
      startPortal({ PORTAL_TRUST_PROXY: 'loopback' }),
      // A window of its own length, so its counts meet only other runs of this test.
      startPortal({ PORTAL_SIGNIN_MAX_PER_IP: '3', PORTAL_SIGNIN_WINDOW_S: '60' }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([trusting?.stop(), direct?.stop()]);
  });

  it('marks the session and form cookies Secure when a trusted proxy says the request came over TLS', async () => {
    const tls = await cookiesOfSetup(trusting, TLS);
    for (const c of [tls.session, tls.form]) expect(c).toMatch(/; Secure(;|$)/);
    for (const c of [tls.session, tls.form]) expect(c).toMatch(/; HttpOnly;.*SameSite=Strict/);
    // The same proxy forwarding plain HTTP: not Secure (the browser would drop a Secure cookie).
    const plain = await cookiesOfSetup(trusting, { 'x-forwarded-proto': 'http' });
    for (const c of [plain.session, plain.form]) expect(c).not.toMatch(/Secure/);
  });

  it('ignores X-Forwarded-Proto and X-Forwarded-For when no proxy is trusted', async () => {
    const spoofed = await cookiesOfSetup(direct, TLS);
    for (const c of [spoofed.session, spoofed.form]) expect(c).not.toMatch(/Secure/);
    // The sign-in limit counts the socket's address (loopback here, shared with any other run),
    // whatever address the header claims: failures "from" fresh addresses reach this one
    // address's budget of 3 within 3 attempts. Were the header believed, none would be limited.
    const window = 60_000;
    if (window - (Date.now() % window) < 5_000) await nextWindow(window, 0);
    const form = await signinForm(direct.url);
    const statuses: number[] = [];
    for (let i = 0; i < 4 && !statuses.includes(429); i++) {
      const res = await postSignin(
        direct.url,
        form,
        `nobody-${i}-${Date.now()}@example.test`,
        'wrong!',
        clientIp(),
      );
      statuses.push(res.status);
    }
    expect(statuses).toContain(429);
  });
});
