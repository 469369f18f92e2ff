/**
 * Admin CLI, standing in for the portal's Keys page. Prints one JSON object per command on stdout.
 *
 *   org create --name N --tier verify|assess|bureau [--rate-rps N] [--credits N] [--overdraft N]
 *   org show --org ORG_ID
 *   key create --org ORG_ID
 *   key list --org ORG_ID
 *   key revoke --key-id ID
 *   context save --org ORG_ID --id CONTEXT_ID (--file F | --json J)
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig } from '../../shared/config.ts';
import { createRedis } from '../../shared/clients/redis.ts';
import { Context as ContextSchema } from '../../shared/contract/request.ts';
import { TIERS } from '../../shared/contract/response.ts';
import { issuesToErrors } from '../../shared/contract/validation.ts';
import { OrgStore } from '../../shared/orgs/store.ts';

const USAGE = `usage:
  admin org create --name N --tier verify|assess|bureau [--rate-rps N] [--credits N] [--overdraft N]
  admin org show --org ORG_ID
  admin key create --org ORG_ID
  admin key list --org ORG_ID
  admin key revoke --key-id ID
  admin context save --org ORG_ID --id CONTEXT_ID (--file F | --json J)`;

class UsageError extends Error {}

const count = z.coerce.number().int().nonnegative();

function need(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`missing --${flag}`);
  return value;
}

function num(value: string | undefined, flag: string, positive = false): number | undefined {
  if (value === undefined) return undefined;
  const r = (positive ? count.positive() : count).safeParse(value);
  if (!r.success)
    throw new UsageError(`--${flag} must be a ${positive ? 'positive' : 'non-negative'} integer`);
  return r.data;
}

export async function run(argv: string[], store: OrgStore): Promise<unknown> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      tier: { type: 'string' },
      'rate-rps': { type: 'string' },
      credits: { type: 'string' },
      overdraft: { type: 'string' },
      org: { type: 'string' },
      'key-id': { type: 'string' },
      id: { type: 'string' },
      file: { type: 'string' },
      json: { type: 'string' },
    },
  });
  const [noun, verb] = positionals;
  switch (`${noun} ${verb}`) {
    case 'org create': {
      const tier = z.enum(TIERS).safeParse(values.tier);
      if (!tier.success) throw new UsageError('--tier must be verify, assess or bureau');
      return store.createOrg({
        name: need(values.name, 'name'),
        tier: tier.data,
        rateRps: num(values['rate-rps'], 'rate-rps', true),
        credits: num(values.credits, 'credits'),
        overdraft: num(values.overdraft, 'overdraft'),
      });
    }
    case 'org show': {
      const org = await store.getOrg(need(values.org, 'org'));
      if (!org) throw new UsageError(`unknown organisation ${values.org}`);
      return org;
    }
    case 'key create':
      return store.createKey(need(values.org, 'org'));
    case 'key list':
      return { keys: await store.listKeys(need(values.org, 'org')) };
    case 'key revoke': {
      const keyId = need(values['key-id'], 'key-id');
      if (!(await store.revokeKey(keyId))) throw new UsageError(`unknown key ${keyId}`);
      return { key_id: keyId, status: 'revoked' };
    }
    case 'context save': {
      const orgId = need(values.org, 'org');
      const contextId = need(values.id, 'id');
      if ((values.file === undefined) === (values.json === undefined)) {
        throw new UsageError('give exactly one of --file, --json');
      }
      const text = values.file !== undefined ? readFileSync(values.file, 'utf8') : values.json!;
      let context: unknown;
      try {
        context = JSON.parse(text);
      } catch {
        throw new UsageError('the context is not valid JSON');
      }
      const parsed = ContextSchema.safeParse(context);
      if (!parsed.success) {
        throw new UsageError(
          `invalid context: ${issuesToErrors(parsed.error.issues)
            .map((e) => `${e.field ?? '(root)'}: ${e.message}`)
            .join('; ')}`,
        );
      }
      return {
        org_id: orgId,
        context_id: contextId,
        context: await store.saveContext(orgId, contextId, parsed.data),
      };
    }
    default:
      throw new UsageError(`unknown command: ${positionals.join(' ') || '(none)'}`);
  }
}

if (import.meta.main) {
  const cfg = loadConfig();
  const redis = createRedis(cfg.REDIS_URL, { connectionName: 'frs-admin' });
  try {
    const out = await run(process.argv.slice(2), new OrgStore(redis));
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    process.stderr.write(
      `admin: ${msg}\n${err instanceof UsageError || err instanceof TypeError ? USAGE + '\n' : ''}`,
    );
    process.exitCode = 2;
  } finally {
    redis.disconnect();
  }
}
