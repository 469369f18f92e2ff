/**
 * Admin CLI, standing in for the portal's Keys page. Prints one JSON object per command on stdout.
 *
 *   org create --name N --tier verify|assess|bureau [--rate-rps N] [--credits N] [--overdraft N]
 *   org update --org ORG_ID [--tier T] [--rate-rps N] [--credits N] [--overdraft N] [--entitlements a,b]
 *              [--phone-lookup-cap N]   (live phone lookups a month; 0: none)
 *   org show --org ORG_ID          (includes credits used this UTC month)
 *   key create --org ORG_ID [--label L]
 *   key list --org ORG_ID
 *   key revoke --key-id ID
 *   context set --org ORG_ID --id CONTEXT_ID --json '{"sector": ...}'
 *   context delete --org ORG_ID --id CONTEXT_ID
 *   context list --org ORG_ID
 *   user create --org ORG_ID --email E [--admin]  (a portal user; prints a one-time setup link, 24 h)
 *   user link --email E                  (a new setup link: lost link or forgotten password)
 *   version show | version challenger --id ID|--clear | version retire --id ID
 *   version promote --id ID [--force --reason R [--operator NAME]]   (reads the latest backtest)
 *   ledger withdraw --outcome OC_ID --reason R [--operator NAME]   (the report counts for nobody,
 *                                    or the answer names the later outcome that still decides the vote)
 *   correction add|remove --cidr C|--asn N --set KIND --reason R --operator NAME | correction list
 *   list show|add|remove|import|export --org ORG_ID ...   (an organisation's allow/deny lists)
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { Email, SETUP_TTL_S, UserStore } from '../../shared/portal/users.ts';
import { loadPortalConfig } from '../../shared/portal/config.ts';
import { createRedis, durableRedis } from '../../shared/clients/redis.ts';
import { TIERS } from '../../shared/vocabulary/score-terms.ts';
import { Context } from '../../shared/contract/request.ts';
import { duplicateKeyErrors } from '../../shared/contract/validation.ts';
import {
  CONTEXT_ID,
  ENTITLEMENT_ITEMS,
  KEY_LABEL,
  ORG_NAME,
  OrgStore,
  type OrgUpdate,
} from '../../shared/orgs/store.ts';
import { VersionAdmin } from '../../shared/scoring/version-state.ts';
import { createClickHouse, type ClickHouseClient } from '../../shared/clients/clickhouse.ts';
import type { RedisClient } from '../../shared/clients/redis.ts';
import { LedgerVotes } from '../../shared/capabilities/ledger-votes.ts';
import { withdrawOutcome, WithdrawalError, type WithdrawalDeps } from './ledger-withdrawal.ts';
import { SubjectKeys } from '../../shared/capabilities/subject-key.ts';
import { CorrectionError, CorrectionStore } from '../../shared/capabilities/corrections.ts';
import { errorMessage } from '../../shared/error-message.ts';
import {
  gatePromotion,
  promotionRecord,
  type PromotionGateDeps,
} from '../../shared/backtest/promotion-gate.ts';
import { latestRun, recordPromotion } from '../../shared/backtest/store.ts';
import { correctionCommand, CORRECTION_USAGE } from './corrections.ts';
import { OrgListStore } from '../../shared/orgs/lists-store.ts';
import { ListEntryError } from '../../shared/capabilities/org-lists/entry.ts';
import { ListArgError, listCommand, LIST_USAGE, RawOutput } from './lists.ts';

const USAGE = `usage:
  admin org create --name N --tier verify|assess|bureau [--rate-rps N] [--credits N] [--overdraft N]
  admin org update --org ORG_ID [--tier verify|assess|bureau] [--rate-rps N] [--credits N] [--overdraft N]
                   [--entitlements ITEM,ITEM]   (items beyond the tier's defaults; '' clears)
                   [--phone-lookup-cap N]       (live phone lookups a month; 0 turns them off)
  admin org show --org ORG_ID
  admin key create --org ORG_ID [--label LABEL]
  admin key list --org ORG_ID
  admin key revoke --key-id ID
  admin key index                                  (once, on keys made before the index: lists them for API nodes)
  admin context set --org ORG_ID --id CONTEXT_ID --json CONTEXT
  admin context delete --org ORG_ID --id CONTEXT_ID
  admin context list --org ORG_ID
  admin user create --org ORG_ID --email EMAIL [--admin]   (--admin: may issue setup links to colleagues)
  admin user migrate-emails                        (once: user-by-email keys named by address get digest names)
  admin user link --email EMAIL
  admin version show
  admin version challenger --id VERSION | --clear   (scored silently beside the default; audit only)
  admin version promote --id VERSION [--force --reason TEXT] [--operator NAME]
                                                   (the default on every node within seconds; refused
                                                   without a recent backtest that passed the caps)
  admin version retire --id VERSION                (no new score uses it; stored scores still explain)
  admin ledger withdraw --outcome OUTCOME_ID --reason TEXT [--operator NAME]
                                                   (the report counts for nobody, unless a later outcome
                                                   of the organisation decides its vote: then named in
                                                   "superseded"; recorded in ClickHouse)
${CORRECTION_USAGE}
${LIST_USAGE}`;

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

function entitlementsArg(value: string): string[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = items.filter((i) => !ENTITLEMENT_ITEMS.includes(i));
  if (unknown.length > 0)
    throw new UsageError(`unknown entitlement ${unknown.join(', ')}; known: ${ENTITLEMENT_ITEMS.join(', ')}`);
  return [...new Set(items)];
}

function jsonArg(value: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new UsageError('--json is not valid JSON');
  }
  // As the API refuses a body naming a member twice: JSON.parse would keep the last one quietly.
  const duplicates = duplicateKeyErrors(value);
  if (duplicates.length > 0) throw new UsageError(`--json: ${duplicates.map((d) => d.message).join('; ')}`);
  return parsed;
}

function nameArg(value: string): string {
  const name = ORG_NAME.safeParse(value);
  if (!name.success) throw new UsageError(`--name ${name.error.issues[0]!.message}`);
  return name.data;
}

function tierArg(value: string | undefined) {
  const tier = z.enum(TIERS).safeParse(value);
  if (!tier.success) throw new UsageError('--tier must be verify, assess or bureau');
  return tier.data;
}

function setupLink(portalUrl: string | undefined, token: string) {
  return {
    setup_url: `${(portalUrl ?? 'http://127.0.0.1:8090').replace(/\/$/, '')}/setup?token=${token}`,
    expires_at: new Date(Date.now() + SETUP_TTL_S * 1000).toISOString(),
  };
}

/** What some commands need besides the organisation store. */
export interface AdminDeps {
  versions?: VersionAdmin;
  users?: UserStore;
  /** Base of portal setup links. */
  portalUrl?: string;
  /** For `ledger withdraw`: ClickHouse (the outcome and the record of the withdrawal) and the ledger. */
  ledger?: () => WithdrawalDeps;
  /** For `version promote`: the latest backtest of the candidate and the record of promotions. */
  promotionGate?: () => PromotionGateDeps;
  /** For `correction`: the operator corrections (shared/capabilities/corrections.ts). */
  corrections?: CorrectionStore;
  /** For `list`: the organisations' allow/deny lists (shared/orgs/lists-store.ts). */
  lists?: OrgListStore;
}

const OPTIONS = {
  name: { type: 'string' },
  tier: { type: 'string' },
  'rate-rps': { type: 'string' },
  credits: { type: 'string' },
  overdraft: { type: 'string' },
  org: { type: 'string' },
  'key-id': { type: 'string' },
  entitlements: { type: 'string' },
  'phone-lookup-cap': { type: 'string' },
  id: { type: 'string' },
  json: { type: 'string' },
  email: { type: 'string' },
  label: { type: 'string' },
  clear: { type: 'boolean' },
  admin: { type: 'boolean' },
  outcome: { type: 'string' },
  reason: { type: 'string' },
  operator: { type: 'string' },
  force: { type: 'boolean' },
  cidr: { type: 'string' },
  asn: { type: 'string' },
  set: { type: 'string' },
  kind: { type: 'string' },
  value: { type: 'string' },
  effect: { type: 'string' },
  'expires-at': { type: 'string' },
  file: { type: 'string' },
  out: { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];

/** What every command gets: the stores, the parsed flags and the command's verb. */
interface Invocation {
  store: OrgStore;
  deps: AdminDeps;
  values: Values;
  verb: string;
}

type Command = (i: Invocation) => Promise<unknown>;

const operatorArg = (values: Values) => (values.operator ?? process.env.USER ?? 'operator').slice(0, 128);

function versionsOf(deps: AdminDeps): VersionAdmin {
  if (!deps.versions) throw new UsageError('version commands need the version state');
  return deps.versions;
}

function usersOf(deps: AdminDeps): UserStore {
  if (!deps.users) throw new UsageError('user commands need the user store');
  return deps.users;
}

/**
 * Runs `fn`, turning the errors `refused` recognises (by default every one) into usage errors,
 * which are printed with the usage.
 */
async function refusing<T>(
  fn: () => Promise<T>,
  refused: (err: unknown) => boolean = () => true,
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof UsageError || !refused(err)) throw err;
    throw new UsageError(errorMessage(err));
  }
}

async function orgCreate({ store, values }: Invocation) {
  return store.createOrg({
    name: nameArg(need(values.name, 'name')),
    tier: tierArg(values.tier),
    rateRps: num(values['rate-rps'], 'rate-rps', true),
    credits: num(values.credits, 'credits'),
    overdraft: num(values.overdraft, 'overdraft'),
  });
}

async function orgUpdate({ store, values }: Invocation) {
  const orgId = need(values.org, 'org');
  const update: OrgUpdate = {};
  if (values.tier !== undefined) update.tier = tierArg(values.tier);
  const rate = num(values['rate-rps'], 'rate-rps', true);
  if (rate !== undefined) update.rate_rps = rate;
  const credits = num(values.credits, 'credits');
  if (credits !== undefined) update.credits = credits;
  const overdraft = num(values.overdraft, 'overdraft');
  if (overdraft !== undefined) update.overdraft = overdraft;
  if (values.entitlements !== undefined) update.entitlements = entitlementsArg(values.entitlements);
  const lookupCap = num(values['phone-lookup-cap'], 'phone-lookup-cap');
  if (lookupCap !== undefined) update.phone_lookup_cap = lookupCap;
  if (Object.keys(update).length === 0) throw new UsageError('nothing to update');
  const org = await store.updateOrg(orgId, update);
  if (!org) throw new UsageError(`unknown organisation ${orgId}`);
  return org;
}

async function orgShow({ store, values }: Invocation) {
  const org = await store.getOrg(need(values.org, 'org'));
  if (!org) throw new UsageError(`unknown organisation ${values.org}`);
  const { period, used } = await store.creditsUsed(org.org_id);
  return { ...org, credits_period: period, credits_used: used, credits_remaining: org.credits - used };
}

async function keyCreate({ store, values }: Invocation) {
  const label = KEY_LABEL.safeParse(values.label ?? '');
  if (!label.success) throw new UsageError(`--label: ${label.error.issues[0]!.message}`);
  return store.createKey(need(values.org, 'org'), label.data);
}

async function keyRevoke({ store, values }: Invocation) {
  const keyId = need(values['key-id'], 'key-id');
  if (!(await store.revokeKey(keyId))) throw new UsageError(`unknown key ${keyId}`);
  return { key_id: keyId, status: 'revoked' };
}

async function contextSet({ store, values }: Invocation) {
  const orgId = need(values.org, 'org');
  const id = CONTEXT_ID.safeParse(need(values.id, 'id'));
  if (!id.success) throw new UsageError(`--id: ${id.error.issues[0]!.message}`);
  const context = Context.safeParse(jsonArg(need(values.json, 'json')));
  if (!context.success) {
    const why = context.error.issues.map((i) => `${i.path.join('.') || '(context)'}: ${i.message}`);
    throw new UsageError(`--json is not a valid context: ${why.join('; ')}`);
  }
  if (!(await store.saveContext(orgId, id.data, context.data)))
    throw new UsageError(`unknown organisation ${orgId}`);
  return { org_id: orgId, context_id: id.data, context: context.data };
}

async function contextDelete({ store, values }: Invocation) {
  const orgId = need(values.org, 'org');
  const id = need(values.id, 'id');
  if (!(await store.deleteContext(orgId, id))) throw new UsageError(`no context ${id} in ${orgId}`);
  return { org_id: orgId, context_id: id, deleted: true };
}

async function contextList({ store, values }: Invocation) {
  const org = await store.getOrg(need(values.org, 'org'));
  if (!org) throw new UsageError(`unknown organisation ${values.org}`);
  return { org_id: org.org_id, contexts: org.contexts };
}

async function userCreate({ store, deps, values }: Invocation) {
  const orgId = need(values.org, 'org');
  if (!(await store.getOrg(orgId))) throw new UsageError(`unknown organisation ${orgId}`);
  const email = Email.safeParse(need(values.email, 'email'));
  if (!email.success) throw new UsageError('--email must be an email address');
  const { user, setupToken } = await usersOf(deps).create(
    orgId,
    email.data,
    values.admin ? 'admin' : 'member',
  );
  return {
    user_id: user.user_id,
    org_id: orgId,
    email: user.email,
    role: user.role,
    ...setupLink(deps.portalUrl, setupToken),
  };
}

async function userLink({ deps, values }: Invocation) {
  const users = usersOf(deps);
  const user = await users.byEmail(need(values.email, 'email'));
  if (!user) throw new UsageError(`no portal user ${values.email}`);
  const token = await users.issueSetupToken(user.user_id);
  return { user_id: user.user_id, email: user.email, ...setupLink(deps.portalUrl, token) };
}

async function versionPromote({ deps, values }: Invocation) {
  const versions = versionsOf(deps);
  if (!deps.promotionGate) throw new UsageError('version promote needs ClickHouse (the backtests)');
  const gateDeps = deps.promotionGate();
  const request = {
    candidate: need(values.id, 'id'),
    currentDefault: (await versions.show(process.env.SCORE_CHALLENGER)).default,
    force: values.force === true,
    ...(values.reason !== undefined ? { reason: values.reason.slice(0, 1024) } : {}),
    operator: operatorArg(values),
  };
  // Any failure of the gate or the promotion is the operator's to read, printed with the usage.
  const gate = await refusing(async () => {
    const passed = await gatePromotion(gateDeps, request);
    await versions.promote(request.candidate);
    return passed;
  });
  if (request.candidate !== request.currentDefault) await gateDeps.record(promotionRecord(request, gate));
  return {
    ...(await versions.show(process.env.SCORE_CHALLENGER)),
    backtest: gate.backtest,
    ...(gate.forced ? { forced: { problems: gate.problems, reason: request.reason } } : {}),
  };
}

/** `version show`, `version challenger` and `version retire`: each answers with the state after it. */
async function versionState({ deps, values, verb }: Invocation) {
  const versions = versionsOf(deps);
  await refusing(async () => {
    if (verb === 'challenger') await versions.setChallenger(values.clear ? null : need(values.id, 'id'));
    else if (verb === 'retire') await versions.retire(need(values.id, 'id'));
  });
  return versions.show(process.env.SCORE_CHALLENGER);
}

async function ledgerWithdraw({ deps, values }: Invocation) {
  if (!deps.ledger) throw new UsageError('ledger commands need ClickHouse and the ledger Redis');
  const ledger = deps.ledger;
  const reason = need(values.reason, 'reason');
  if (reason.length > 1024) throw new UsageError('--reason: at most 1,024 characters');
  return refusing(
    () => withdrawOutcome(ledger(), need(values.outcome, 'outcome'), reason, operatorArg(values)),
    (err) => err instanceof WithdrawalError,
  );
}

async function correction({ deps, values, verb }: Invocation) {
  const corrections = deps.corrections;
  if (!corrections) throw new UsageError('correction commands need the corrections store');
  return refusing(
    () => correctionCommand(corrections, verb, values),
    (err) => err instanceof CorrectionError,
  );
}

async function list({ store, deps, values, verb }: Invocation) {
  const lists = deps.lists;
  if (!lists) throw new UsageError('list commands need the list store');
  const orgId = need(values.org, 'org');
  if (!(await store.getOrg(orgId))) throw new UsageError(`unknown organisation ${orgId}`);
  return refusing(
    () => listCommand(lists, verb, orgId, values),
    (err) => err instanceof ListEntryError || err instanceof ListArgError,
  );
}

/** Every command, by noun and verb. */
const COMMANDS = new Map<string, Command>([
  ['org create', orgCreate],
  ['org update', orgUpdate],
  ['org show', orgShow],
  ['key create', keyCreate],
  ['key index', async ({ store }) => ({ indexed: await store.indexKeys() })],
  ['key list', async ({ store, values }) => ({ keys: await store.listKeys(need(values.org, 'org')) })],
  ['key revoke', keyRevoke],
  ['context set', contextSet],
  ['context delete', contextDelete],
  ['context list', contextList],
  ['user create', userCreate],
  ['user link', userLink],
  ['user migrate-emails', async ({ deps }) => ({ migrated: await usersOf(deps).migrateEmailKeys() })],
  ['version promote', versionPromote],
  ['version show', versionState],
  ['version challenger', versionState],
  ['version retire', versionState],
  ['ledger withdraw', ledgerWithdraw],
  ['correction add', correction],
  ['correction remove', correction],
  ['correction list', correction],
  ...['show', 'add', 'remove', 'import', 'export'].map((verb): [string, Command] => [`list ${verb}`, list]),
]);

/**
 * parseArgs keeps the last of a repeated option (`--label one --label two` is `two`): an operator
 * who typed both meant something the command would not do. Every repeated option is refused.
 */
function refuseRepeats(tokens: readonly { kind: string; name?: string }[]): void {
  const seen = new Map<string, number>();
  for (const t of tokens) if (t.kind === 'option') seen.set(t.name!, (seen.get(t.name!) ?? 0) + 1);
  const repeated = [...seen].filter(([, n]) => n > 1);
  if (repeated.length > 0) {
    const list = repeated.map(([name, n]) => `--${name} (${n} times)`).join(', ');
    throw new UsageError(`repeated option ${list}: give each option once`);
  }
}

export async function run(argv: string[], store: OrgStore, deps: AdminDeps = {}): Promise<unknown> {
  const { positionals, values, tokens } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: OPTIONS,
    tokens: true,
  });
  refuseRepeats(tokens);
  const [noun, verb] = positionals;
  const command = COMMANDS.get(`${noun} ${verb}`);
  if (!command) throw new UsageError(`unknown command: ${positionals.join(' ') || '(none)'}`);
  return command({ store, deps, values, verb: verb! });
}

if (import.meta.main) {
  const cfg = loadPortalConfig();
  const redis = createRedis(durableRedis(cfg), { connectionName: 'frs-admin' });
  // Made only by the command that needs them.
  let ch: ClickHouseClient | undefined;
  let ledgerRedis: RedisClient | undefined;
  try {
    const out = await run(process.argv.slice(2), new OrgStore(redis), {
      versions: new VersionAdmin(redis, cfg.SCORE_VERSION_KEY),
      users: new UserStore(redis),
      portalUrl: cfg.PORTAL_URL,
      promotionGate: () => {
        ch ??= createClickHouse(cfg.CLICKHOUSE_URL);
        const db = cfg.CLICKHOUSE_DATABASE;
        const client = ch;
        return {
          latest: (candidate, baseline) => latestRun(client, db, candidate, baseline),
          record: (p) => recordPromotion(client, db, p),
          maxAgeDays: cfg.BACKTEST_MAX_AGE_DAYS,
        };
      },
      corrections: new CorrectionStore(redis, cfg.CAPABILITY_KEY_PREFIX),
      lists: new OrgListStore(redis),
      ledger: () => {
        ch = createClickHouse(cfg.CLICKHOUSE_URL);
        ledgerRedis = cfg.LEDGER_REDIS_URL
          ? createRedis(cfg.LEDGER_REDIS_URL, { connectionName: 'frs-admin-ledger' })
          : redis;
        return {
          ch,
          database: cfg.CLICKHOUSE_DATABASE,
          votes: new LedgerVotes(ledgerRedis, cfg.CAPABILITY_KEY_PREFIX, cfg.LEDGER_WRITES_PER_ORG_MONTH),
          keys: SubjectKeys.fromConfig(cfg),
        };
      },
    });
    process.stdout.write(out instanceof RawOutput ? out.text : `${JSON.stringify(out)}\n`);
  } catch (err) {
    const msg = errorMessage(err);
    process.stderr.write(
      `admin: ${msg}\n${err instanceof UsageError || err instanceof TypeError ? USAGE + '\n' : ''}`,
    );
    process.exitCode = 2;
  } finally {
    redis.disconnect();
    if (ledgerRedis && ledgerRedis !== redis) ledgerRedis.disconnect();
    await ch?.close();
  }
}
