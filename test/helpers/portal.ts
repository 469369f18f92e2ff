import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { RedisClient } from '../../shared/clients/redis.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { UserStore } from '../../shared/portal/users.ts';
import { freePort, spawnService, waitFor, type Service } from '../../infra/harness/processes.ts';

export interface PortalNode extends Service {
  url: string;
}

/** Starts the portal and waits until it answers readyz. */
export async function startPortal(env: Record<string, string> = {}): Promise<PortalNode> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const svc = spawnService('services/portal/main.ts', { PORTAL_PORT: String(port), PORTAL_URL: url, ...env });
  const ready = new AbortController();
  const died = once(svc.proc, 'exit', { signal: ready.signal }).then(
    ([code]) => Promise.reject(new Error(`portal exited (${String(code)}) before it was ready`)),
    () => new Promise<never>(() => undefined),
  );
  try {
    await Promise.race([
      waitFor('portal /readyz', async () => (await fetch(`${url}/readyz`)).ok, 90_000),
      died,
    ]);
  } catch (err) {
    await svc.stop('SIGKILL');
    throw new Error(`${String(err)}\n${svc.output()}`, { cause: err });
  } finally {
    ready.abort();
  }
  return { ...svc, url };
}

/** A form's double-submit cookie and token, as a browser gets them from GET /signin. */
export async function signinForm(portalUrl: string): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${portalUrl}/signin`);
  const cookie = res.headers
    .getSetCookie()
    .find((c) => c.startsWith('frs_form='))!
    .split(';')[0]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await res.text())![1]!;
  return { cookie, csrf };
}

/**
 * POST /signin as a form, without following the redirect, as client address `ip` (the portal
 * under test trusts X-Forwarded-For from loopback, as it would behind a proxy).
 */
export function postSignin(
  portalUrl: string,
  form: { cookie: string; csrf: string },
  email: string,
  password: string,
  ip: string,
) {
  return fetch(`${portalUrl}/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: form.cookie,
      'x-forwarded-for': ip,
    },
    body: new URLSearchParams({ _csrf: form.csrf, email, password }),
  });
}

/** A new organisation and portal user made through the stores the admin CLI uses; its setup token. */
export async function newPortalUser(
  redis: RedisClient,
): Promise<{ orgId: string; email: string; setupToken: string }> {
  const org = await new OrgStore(redis).createOrg({ name: 'portal-test', tier: 'verify' });
  const email = `staff-${Date.now()}-${randomBytes(4).toString('hex')}@example.test`;
  const { setupToken } = await new UserStore(redis).create(org.org_id, email);
  return { orgId: org.org_id, email, setupToken };
}

export { completeSetup, cookiePair, setCookies } from '../../infra/harness/portal-setup.ts';
