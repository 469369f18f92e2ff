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
import { nextWindow as nextClockWindow } from '../../infra/harness/wait.ts';

const PASSWORD = 'correct horse battery staple';
/** Checked on one account from every address before it counts as attacked. */
const MAX_PER_EMAIL = 5;
const MAX_PER_IP = 12;
const MAX_PER_IP_EMAIL = 3;
/** Short enough to wait out, long enough for a burst of 40 scrypt checks on a busy machine. */
const WINDOW_S = 10;
/** A client address of its own per call (the portal trusts X-Forwarded-For from loopback here). */
const clientIp = () => `10.${[0, 0, 0].map(() => Math.floor(Math.random() * 250) + 1).join('.')}`;
const hex16 = () => Math.floor(Math.random() * 0xffff).toString(16);
/** A random /64 (documentation prefix), and an address of its own in it per call. */
const ipv6Net = () => `2001:db8:${hex16()}:${hex16()}`;
const inNet = (net: string) => `${net}:${hex16()}:${hex16()}:${hex16()}:${hex16()}`;

/** Waits for the start of the next window, so a burst is counted in one window. */
const nextWindow = (): Promise<void> => nextClockWindow(WINDOW_S * 1000, 50);

const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((t, s) => ({ ...t, [s]: (t[s] ?? 0) + 1 }), {});

describe('sign-in limit under parallel attempts', () => {
  let portal: PortalNode;

  beforeAll(async () => {
    portal = await startPortal({
      PORTAL_TRUST_PROXY: 'loopback',
      PORTAL_SIGNIN_MAX_PER_EMAIL: String(MAX_PER_EMAIL),
      PORTAL_SIGNIN_MAX_PER_IP: String(MAX_PER_IP),
      PORTAL_SIGNIN_MAX_PER_IP_EMAIL: String(MAX_PER_IP_EMAIL),
      PORTAL_SIGNIN_WINDOW_S: String(WINDOW_S),
    });
  });

  afterAll(async () => {
    await portal?.stop();
  });

  /** The portal's count of tripped account limits, from its /metrics (read from loopback). */
  const tripped = async () => {
    const text = await (await fetch(`${portal.url}/metrics`)).text();
    return Number(/^frs_portal_signin_account_limit_tripped_total (\d+)/m.exec(text)?.[1] ?? NaN);
  };

  it('checks at most the per-address-and-account limit of 40 parallel wrong passwords from one address; the owner elsewhere still gets in', async () => {
    const r = redis();
    const user = await newPortalUser(r).finally(() => r.disconnect());
    expect((await completeSetup(portal.url, user.setupToken, PASSWORD)).status).toBe(303);
    const form = await signinForm(portal.url);
    const ip = clientIp();
    const trippedBefore = await tripped();

    await nextWindow();
    const burst = await Promise.all(
      Array.from({ length: 40 }, () => postSignin(portal.url, form, user.email, 'wrong password!', ip)),
    );
    expect(tally(burst.map((res) => res.status))).toEqual({
      401: MAX_PER_IP_EMAIL,
      429: 40 - MAX_PER_IP_EMAIL,
    });
    for (const res of burst.filter((x) => x.status === 429))
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);

    // Limited from that address whatever the password, until the window ends...
    expect((await postSignin(portal.url, form, user.email, PASSWORD, ip)).status).toBe(429);
    // ...but a stranger who knows the email cannot lock its owner out: from elsewhere, it works.
    expect((await postSignin(portal.url, form, user.email, PASSWORD, clientIp())).status).toBe(303);
    // Refused attempts at one address never look like many addresses guessing the account.
    expect(await tripped()).toBe(trippedBefore);
  });

  it('many addresses guessing one account in parallel: one guess each past the account limit; the owner gets in; logged and counted', async () => {
    const windowOf = () => Math.floor(Date.now() / 1000 / WINDOW_S);
    // The checks after the burst must fall in its window; on a machine too slow for that, again.
    for (let round = 1; ; round++) {
      const r = redis();
      const user = await newPortalUser(r).finally(() => r.disconnect());
      expect((await completeSetup(portal.url, user.setupToken, PASSWORD)).status).toBe(303);
      const form = await signinForm(portal.url);
      const addresses = Array.from({ length: 8 }, clientIp);
      const trippedBefore = await tripped();

      await nextWindow();
      const window = windowOf();
      // Two guesses from each of 8 addresses, all at once.
      const burst = await Promise.all(
        [...addresses, ...addresses].map((ip) =>
          postSignin(portal.url, form, user.email, 'wrong password!', ip),
        ),
      );
      // A guessing address is refused even the right password; the owner at a clean address is not.
      const fromGuesser = await postSignin(portal.url, form, user.email, PASSWORD, addresses[0]!);
      const fromOwner = await postSignin(portal.url, form, user.email, PASSWORD, clientIp());
      if (windowOf() !== window && round < 3) continue;

      const checked = burst.filter((res) => res.status === 401).length;
      // Every address got its first guess; second guesses only while the account was under its limit.
      expect(checked).toBeGreaterThanOrEqual(addresses.length);
      expect(checked).toBeLessThanOrEqual(addresses.length + MAX_PER_EMAIL);
      expect(checked + burst.filter((res) => res.status === 429).length).toBe(burst.length);
      expect(fromGuesser.status).toBe(429);
      expect(fromOwner.status).toBe(303);

      // Once per account and window in /metrics and in the log, without the email.
      expect(await tripped()).toBe(trippedBefore + 1);
      const lines = portal
        .output()
        .split('\n')
        .filter((l) => l.includes('sign-in limit of an account tripped'));
      expect(lines.length).toBeGreaterThanOrEqual(1);
      expect(portal.output()).not.toContain(user.email);
      return;
    }
  });

  it('counts an IPv6 client by its /64: addresses in one network share the per-address limit', async () => {
    const form = await signinForm(portal.url);
    const net = ipv6Net();
    await nextWindow();
    const burst = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        postSignin(
          portal.url,
          form,
          `nobody6-${i}-${Date.now()}@example.test`,
          'wrong password!',
          inNet(net),
        ),
      ),
    );
    expect(tally(burst.map((res) => res.status))).toEqual({ 401: MAX_PER_IP, 429: 40 - MAX_PER_IP });
    // Another /64 has a limit of its own.
    const other = await postSignin(
      portal.url,
      form,
      `nobody6-x-${Date.now()}@example.test`,
      'x',
      inNet(ipv6Net()),
    );
    expect(other.status).toBe(401);
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
    for (let i = 0; i < MAX_PER_IP_EMAIL + 2; i++)
      expect((await postSignin(portal.url, form, user.email, PASSWORD, ip)).status).toBe(303);
    // The failures still count: the limit is reached after exactly MAX_PER_IP_EMAIL of them.
    for (let i = 0; i < MAX_PER_IP_EMAIL; i++)
      expect((await postSignin(portal.url, form, user.email, 'wrong password!', ip)).status).toBe(401);
    expect((await postSignin(portal.url, form, user.email, PASSWORD, ip)).status).toBe(429);
  });
});
