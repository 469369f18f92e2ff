import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { OrgStore } from '../../shared/orgs/store.ts';
import { admin, redis } from '../../infra/harness/fixtures.ts';
import { serviceEnv } from '../../infra/harness/processes.ts';

const run = promisify(execFile);

/** The CLI exit code and stderr of a command that should be refused. */
async function refused(...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    await run(process.execPath, ['services/admin/cli.ts', ...args], {
      env: serviceEnv('services/admin/cli.ts'),
    });
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, stderr: e.stderr };
  }
  throw new Error(`admin ${args.join(' ')} was not refused`);
}

describe('admin CLI: organisations, entitlements, saved contexts', () => {
  const r = redis();
  afterAll(() => r.disconnect());

  it('updates limits and entitlements, saves and deletes contexts, and refuses bad input', async () => {
    const org = String((await admin('org', 'create', '--name', 'cli', '--tier', 'verify')).org_id);
    const updated = await admin(
      'org',
      'update',
      '--org',
      org,
      '--tier',
      'assess',
      '--rate-rps',
      '25',
      '--credits',
      '500',
      '--overdraft',
      '10',
      '--entitlements',
      'reputation_ledger,cluster_id',
    );
    expect(updated).toMatchObject({ tier: 'assess', rate_rps: 25, credits: 500, overdraft: 10 });
    expect(updated.entitlements).toEqual(['reputation_ledger', 'cluster_id']);

    const context = {
      sector: 'telco',
      geography: { operating_countries: ['KE'] },
      collection_point: { moment: 'payment' },
    };
    await admin('context', 'set', '--org', org, '--id', 'mpesa', '--json', JSON.stringify(context));
    expect((await new OrgStore(r).getOrg(org))!.contexts).toEqual({ mpesa: context });

    expect((await refused('org', 'update', '--org', org, '--entitlements', 'everything')).code).toBe(2);
    expect(
      (await refused('context', 'set', '--org', org, '--id', 'x', '--json', '{"sector":"a"}')).stderr,
    ).toMatch(/geography/);
    expect((await refused('org', 'update', '--org', org)).stderr).toMatch(/nothing to update/);

    await admin('context', 'delete', '--org', org, '--id', 'mpesa');
    const shown = await admin('org', 'show', '--org', org);
    expect(shown).toMatchObject({ contexts: {}, credits_used: 0, credits_remaining: 500 });
  });

  it('refuses a repeated option (exit 2, naming it) instead of keeping the last one', async () => {
    const org = String((await admin('org', 'create', '--name', 'repeats', '--tier', 'verify')).org_id);
    const twice = await refused('key', 'create', '--org', org, '--label', 'one', '--label', 'two');
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/repeated option --label \(2 times\)/);
    // Every spelling counts, and a flag too.
    expect((await refused('key', 'create', '--org', org, '--label=one', '--label', 'one')).code).toBe(2);
    expect((await refused('org', 'update', '--org', org, '--org', org, '--tier', 'assess')).stderr).toMatch(
      /--org \(2 times\)/,
    );
    expect(
      (await refused('user', 'create', '--org', org, '--email', 'a@example.com', '--admin', '--admin'))
        .stderr,
    ).toMatch(/--admin \(2 times\)/);
    expect(await new OrgStore(r).listKeys(org)).toEqual([]);
    expect((await new OrgStore(r).getOrg(org))!.tier).toBe('verify');

    // The JSON of a context is held to the API's rule: a member named twice is refused.
    const dup = await refused(
      'context',
      'set',
      '--org',
      org,
      '--id',
      'dup',
      '--json',
      '{"sector":"a","geography":{},"collection_point":{},"sector":"b"}',
    );
    expect(dup.code).toBe(2);
    expect(dup.stderr).toMatch(/'sector' is sent more than once/);
    expect((await new OrgStore(r).getOrg(org))!.contexts).toEqual({});
  });

  it('reads organisations written before entitlements and contexts existed', async () => {
    await r.hset('frs:org:org_00000000000000aa', {
      org_id: 'org_00000000000000aa',
      name: 'old',
      tier: 'verify',
      rate_rps: 10,
      credits: 100,
      overdraft: 5,
      created_at: '2026-01-01T00:00:00.000Z',
    });
    expect(await new OrgStore(r).getOrg('org_00000000000000aa')).toMatchObject({
      entitlements: [],
      contexts: {},
    });
  });
});
