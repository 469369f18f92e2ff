import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupTokenKey } from '../../shared/portal/keyspace.ts';
import { UserStore } from '../../shared/portal/users.ts';
import { sha256Hex } from '../../shared/sha256.ts';
import { admin, redis } from '../../infra/harness/fixtures.ts';
import {
  completeSetup,
  cookiePair,
  newPortalUser,
  postSignin,
  signinForm,
  startPortal,
  type PortalNode,
} from '../helpers/portal.ts';

const FIRST = 'correct horse battery staple';
const SECOND = 'another horse, another staple';
/** A client address of its own per call (the portal trusts X-Forwarded-For from loopback here). */
const clientIp = () => `10.${[0, 0, 0].map(() => Math.floor(Math.random() * 250) + 1).join('.')}`;

describe('a password set ends every other session and setup link; one setup link is live', () => {
  let portal: PortalNode;
  const r = redis();
  const users = new UserStore(r);

  beforeAll(async () => {
    portal = await startPortal({
      PORTAL_TRUST_PROXY: 'loopback',
    });
  });

  afterAll(async () => {
    await portal?.stop();
    r.disconnect();
  });

  /** The page status a session cookie gets: 200 while signed in, 303 to /signin once not. */
  const keysPage = async (session: string) =>
    (await fetch(`${portal.url}/keys`, { redirect: 'manual', headers: { cookie: session } })).status;

  const signIn = async (email: string, password: string) => {
    const res = await postSignin(portal.url, await signinForm(portal.url), email, password, clientIp());
    return { status: res.status, session: cookiePair(res, 'frs_session') };
  };

  /** The token of the setup link the admin CLI prints, as an operator would send it. */
  const cliLink = async (email: string) =>
    new URL(String((await admin('user', 'link', '--email', email)).setup_url)).searchParams.get('token')!;

  it('an older setup link stops working once a newer one is issued', async () => {
    const user = await newPortalUser(r);
    const newer = await users.issueSetupToken((await users.byEmail(user.email))!.user_id);
    // The first link: neither its form nor its submission works any more.
    expect((await fetch(`${portal.url}/setup?token=${user.setupToken}`)).status).toBe(404);
    expect((await completeSetup(portal.url, user.setupToken, FIRST)).status).toBe(404);
    expect((await signIn(user.email, FIRST)).status).toBe(401);
    // The newer one works, once.
    expect((await completeSetup(portal.url, newer, FIRST)).status).toBe(303);
    expect((await completeSetup(portal.url, newer, SECOND)).status).toBe(404);
    expect((await signIn(user.email, FIRST)).status).toBe(303);
  });

  it('a replaced link is refused even if its token record survives (issued while another was)', async () => {
    const user = await newPortalUser(r);
    const userId = (await users.byEmail(user.email))!.user_id;
    await users.issueSetupToken(userId);
    // Two links issued at once can each miss the other's record: recreate the first one's.
    await r.set(setupTokenKey(sha256Hex(user.setupToken)), userId, 'EX', 60);
    expect(await users.peekSetupToken(user.setupToken)).toBeNull();
    expect(await users.completeSetup(user.setupToken, FIRST)).toBeNull();
    expect((await users.byId(userId))!.password).toBe('');
  });

  it('a password reset signs out every existing session and every earlier link', async () => {
    const user = await newPortalUser(r);
    const setup = await completeSetup(portal.url, user.setupToken, FIRST);
    const a = cookiePair(setup, 'frs_session')!; // signed in by the setup itself
    const b = (await signIn(user.email, FIRST)).session!; // another browser
    expect(await keysPage(a)).toBe(200);
    expect(await keysPage(b)).toBe(200);

    // Forgotten password: the operator issues a link, then another; issuing alone ends nothing.
    const stale = await cliLink(user.email);
    const reset = await cliLink(user.email);
    expect(await keysPage(a)).toBe(200);
    expect((await fetch(`${portal.url}/setup?token=${stale}`)).status).toBe(404);

    const done = await completeSetup(portal.url, reset, SECOND);
    expect(done.status).toBe(303);
    const c = cookiePair(done, 'frs_session')!;
    // Sessions A and B are signed out: pages redirect to sign-in, forms are refused.
    expect(await keysPage(a)).toBe(303);
    expect(await keysPage(b)).toBe(303);
    const post = await fetch(`${portal.url}/keys`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: a, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ label: 'after reset' }),
    });
    expect(post.status).toBe(401);
    // The session the reset started works; the old password does not, the new one does.
    expect(await keysPage(c)).toBe(200);
    expect((await signIn(user.email, FIRST)).status).toBe(401);
    const d = await signIn(user.email, SECOND);
    expect(d.status).toBe(303);
    expect(await keysPage(d.session!)).toBe(200);
    // No link of before the reset works, the used one included.
    for (const token of [user.setupToken, stale, reset])
      expect((await fetch(`${portal.url}/setup?token=${token}`)).status).toBe(404);
  });
});
