import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyLimitError, MAX_ACTIVE_KEYS } from '../../shared/orgs/key-quota.ts';
import { activeKeysKey, digestKey, keyIdKey, orgKey, orgKeysKey } from '../../shared/orgs/keyspace.ts';
import { OrgStore } from '../../shared/orgs/store.ts';
import { UserStore } from '../../shared/portal/users.ts';
import { redis } from '../../infra/harness/fixtures.ts';
import { completeSetup, cookiePair, startPortal, type PortalNode } from '../helpers/portal.ts';

const run = promisify(execFile);

describe(`at most ${MAX_ACTIVE_KEYS} active keys per organisation`, () => {
  let portal: PortalNode;
  const r = redis();
  const orgs = new OrgStore(r);

  beforeAll(async () => {
    portal = await startPortal();
  });

  /** Organisations made here: their hundreds of keys are revoked and deleted afterwards. */
  const made: string[] = [];
  const newOrg = async (name: string) => {
    const org = await orgs.createOrg({ name, tier: 'verify' });
    made.push(org.org_id);
    return org;
  };

  afterAll(async () => {
    await portal?.stop();
    // Every API node loads every key record at boot: do not leave 300 behind per run. Revoked
    // first, so a node that loaded one drops it.
    for (const orgId of made) {
      const keys = await orgs.listKeys(orgId);
      for (const k of keys.filter((x) => x.status === 'active')) await orgs.revokeKey(k.key_id);
      const digests = await Promise.all(keys.map((k) => r.get(keyIdKey(k.key_id))));
      await r.del(
        ...digests.filter((d): d is string => d !== null).map(digestKey),
        ...keys.map((k) => keyIdKey(k.key_id)),
        orgKeysKey(orgId),
        activeKeysKey(orgId),
        orgKey(orgId),
      );
    }
    r.disconnect();
  });

  const activeCount = async (orgId: string) =>
    (await orgs.listKeys(orgId)).filter((k) => k.status === 'active').length;

  /** `admin key create` as an operator runs it: its exit code and stderr. */
  const cliCreate = (orgId: string) =>
    run(process.execPath, ['services/admin/cli.ts', 'key', 'create', '--org', orgId]).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );

  it('holds when keys are created in parallel, and frees a place when a key is revoked', async () => {
    const org = await newOrg('key-limit');
    const results = await Promise.allSettled(
      Array.from({ length: MAX_ACTIVE_KEYS + 20 }, (_, i) => orgs.createKey(org.org_id, `k${i}`)),
    );
    const refused = results.filter((x) => x.status === 'rejected');
    expect(results.length - refused.length).toBe(MAX_ACTIVE_KEYS);
    expect(refused).toHaveLength(20);
    for (const x of refused) expect((x as PromiseRejectedResult).reason).toBeInstanceOf(KeyLimitError);
    expect(await activeCount(org.org_id)).toBe(MAX_ACTIVE_KEYS);

    // The admin CLI shares the code path: refused too, with the reason.
    const cli = await cliCreate(org.org_id);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(`at most ${MAX_ACTIVE_KEYS} active keys`);

    // A revoked key does not count: one more may be created, and then no more.
    const [first] = await orgs.listKeys(org.org_id);
    await orgs.revokeKey(first!.key_id);
    await orgs.createKey(org.org_id, 'replacement');
    await expect(orgs.createKey(org.org_id)).rejects.toBeInstanceOf(KeyLimitError);
    expect(await activeCount(org.org_id)).toBe(MAX_ACTIVE_KEYS);
  });

  it('counts the keys of organisations made before the limit, and repairs a count that drifted', async () => {
    const org = await newOrg('key-limit-legacy');
    for (let i = 0; i < MAX_ACTIVE_KEYS; i++) await orgs.createKey(org.org_id);
    // As before the limit existed: keys, but no count of them.
    await r.del(activeKeysKey(org.org_id));
    await expect(orgs.createKey(org.org_id)).rejects.toBeInstanceOf(KeyLimitError);
    // A key revoked without giving its place back (as a revocation racing the count's rebuild
    // could): the count is checked against the keys before a create is refused.
    const [victim] = await orgs.listKeys(org.org_id);
    await r.hset(digestKey((await r.get(keyIdKey(victim!.key_id)))!), 'status', 'revoked');
    await orgs.createKey(org.org_id, 'after repair');
    await expect(orgs.createKey(org.org_id)).rejects.toBeInstanceOf(KeyLimitError);
  });

  it('says so on the Keys page and creates nothing', async () => {
    const org = await newOrg('key-limit-page');
    await Promise.all(Array.from({ length: MAX_ACTIVE_KEYS }, () => orgs.createKey(org.org_id)));
    const email = `keys-${Date.now()}@example.test`;
    const { setupToken } = await new UserStore(r).create(org.org_id, email);
    const session = cookiePair(
      await completeSetup(portal.url, setupToken, 'correct horse battery staple'),
      'frs_session',
    )!;
    const page = await fetch(`${portal.url}/keys`, { headers: { cookie: session } });
    const before = await page.text();
    expect(before).toContain(`${MAX_ACTIVE_KEYS} of at most ${MAX_ACTIVE_KEYS} active keys`);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(before)![1]!;

    const refused = await fetch(`${portal.url}/keys`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, label: 'one too many' }),
    });
    // POST-redirect-GET: the refusal is shown once on the page the redirect lands on.
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe('/keys');
    const body = await (await fetch(`${portal.url}/keys`, { headers: { cookie: session } })).text();
    expect(body).toMatch(/class="error-summary"[^]*Your organisation already has 100 active keys/);
    expect(body).not.toContain('id="new-key"');
    expect(await activeCount(org.org_id)).toBe(MAX_ACTIVE_KEYS);
  });
});
