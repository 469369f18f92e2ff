import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redis } from '../../infra/harness/fixtures.ts';
import {
  completeSetup,
  newPortalUser,
  postSignin,
  signinForm,
  startPortal,
  type PortalNode,
} from '../helpers/portal.ts';
import { nextWindow as nextClockWindow, waitFor } from '../../infra/harness/wait.ts';

const PASSWORD = 'correct horse battery staple';
const MAX_PER_EMAIL = 5;
const MAX_PER_IP = 12;
/** Short enough to wait out, long enough for a burst of 40 scrypt checks on a busy machine. */
const WINDOW_S = 10;
/** A client address of its own per call (the portal trusts X-Forwarded-For from loopback here). */
const clientIp = () => `10.${[0, 0, 0].map(() => Math.floor(Math.random() * 250) + 1).join('.')}`;

/** Waits for the start of the next window, so a burst is counted in one window. */
const nextWindow = (): Promise<void> => nextClockWindow(WINDOW_S * 1000, 50);

const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((t, s) => ({ ...t, [s]: (t[s] ?? 0) + 1 }), {});

describe('sign-in limit under parallel attempts', () => {
  let portal: PortalNode;

  beforeAll(async () => {
    portal = await startPortal({
      PORTAL_GROUP: `frs-portal-signin-${Date.now()}`,
      PORTAL_TRUST_PROXY: 'loopback',
      PORTAL_SIGNIN_MAX_PER_EMAIL: String(MAX_PER_EMAIL),
      PORTAL_SIGNIN_MAX_PER_IP: String(MAX_PER_IP),
      PORTAL_SIGNIN_WINDOW_S: String(WINDOW_S),
    });
  });

  afterAll(async () => {
    await portal?.stop();
  });

  it('checks at most the per-account limit of 40 parallel wrong passwords; the right one waits for the window', async () => {
    const r = redis();
    const user = await newPortalUser(r).finally(() => r.disconnect());
    expect((await completeSetup(portal.url, user.setupToken, PASSWORD)).status).toBe(303);
    const form = await signinForm(portal.url);

    await nextWindow();
    // Each from an address of its own: only the account's limit applies.
    const burst = await Promise.all(
      Array.from({ length: 40 }, () =>
        postSignin(portal.url, form, user.email, 'wrong password!', clientIp()),
      ),
    );
    expect(tally(burst.map((res) => res.status))).toEqual({ 401: MAX_PER_EMAIL, 429: 40 - MAX_PER_EMAIL });
    for (const res of burst.filter((x) => x.status === 429))
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);

    // Limited whatever the password, until the window ends.
    const limited = await postSignin(portal.url, form, user.email, PASSWORD, clientIp());
    expect(limited.status).toBe(429);
    // Accepted once the window ends: at most Retry-After later (with a second for a loaded machine).
    await waitFor(
      'the right password to be accepted in the next window',
      async () => (await postSignin(portal.url, form, user.email, PASSWORD, clientIp())).status === 303,
      (Number(limited.headers.get('retry-after')) + 1) * 1000,
      250,
    );
  });

  it('checks at most the per-address limit of 40 parallel attempts on 40 accounts from one address', async () => {
    const form = await signinForm(portal.url);
    const ip = clientIp();
    await nextWindow();
    const burst = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        postSignin(portal.url, form, `nobody-${i}-${Date.now()}@example.test`, 'wrong password!', ip),
      ),
    );
    expect(tally(burst.map((res) => res.status))).toEqual({ 401: MAX_PER_IP, 429: 40 - MAX_PER_IP });
  });

  it('gives a successful attempt its slots back: signing in often is not failing', async () => {
    const r = redis();
    const user = await newPortalUser(r).finally(() => r.disconnect());
    expect((await completeSetup(portal.url, user.setupToken, PASSWORD)).status).toBe(303);
    const form = await signinForm(portal.url);
    const ip = clientIp();
    await nextWindow();
    for (let i = 0; i < MAX_PER_EMAIL + 2; i++)
      expect((await postSignin(portal.url, form, user.email, PASSWORD, ip)).status).toBe(303);
    // The failures still count: the limit is reached after exactly MAX_PER_EMAIL of them.
    for (let i = 0; i < MAX_PER_EMAIL; i++)
      expect((await postSignin(portal.url, form, user.email, 'wrong password!', ip)).status).toBe(401);
    expect((await postSignin(portal.url, form, user.email, PASSWORD, ip)).status).toBe(429);
  });
});
