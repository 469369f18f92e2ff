/**
 * Each service's Redis URLs on this machine, logged in as its own ACL user: the users of
 * infra/ops/redis/users.acl (durable server) and explain-users.acl (cache server), which
 * infra/local/redis.sh loads into the local servers with passwords it generates once into
 * `<stack dir>/redis-acl/passwords.env`. `npm start` and the test helpers run every service with
 * these, so the services work here under exactly the rules they have in the deployment.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type RedisService = 'api' | 'refresher' | 'sink' | 'admin' | 'portal';

interface Login {
  user: string;
  /** The variable of passwords.env (and of the compose .env) holding its password. */
  password: string;
}

/** Who each service is on the durable server, and on the cache server if it uses it. */
const LOGINS: Record<RedisService, { durable: Login; cache?: Login }> = {
  api: {
    durable: { user: 'frs-api', password: 'FRS_REDIS_API_PASSWORD' },
    cache: { user: 'frs-api', password: 'FRS_REDIS_EXPLAIN_PASSWORD' },
  },
  refresher: { durable: { user: 'frs-refresher', password: 'FRS_REDIS_REFRESHER_PASSWORD' } },
  sink: { durable: { user: 'frs-sink', password: 'FRS_REDIS_SINK_PASSWORD' } },
  admin: { durable: { user: 'frs-admin', password: 'FRS_REDIS_ADMIN_PASSWORD' } },
  portal: {
    durable: { user: 'frs-portal', password: 'FRS_REDIS_PORTAL_PASSWORD' },
    cache: { user: 'frs-portal', password: 'FRS_REDIS_EXPLAIN_PORTAL_PASSWORD' },
  },
};

/** The defaults of shared/config.ts: where a service connects when its environment names no server. */
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const DEFAULT_EXPLAIN_REDIS_URL = 'redis://127.0.0.1:6380';

const ROOT = join(import.meta.dirname, '..', '..');

const aclDir = (env: NodeJS.ProcessEnv) => join(env.FRS_STACK_DIR ?? join(ROOT, '.stack'), 'redis-acl');

export function passwordsFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(aclDir(env), 'passwords.env');
}

/** The rendered ACL file (mode 600) the local durable or cache server loads: a private server of a test loads it too. */
export function aclFile(server: 'durable' | 'cache', env: NodeJS.ProcessEnv = process.env): string {
  return join(aclDir(env), server === 'durable' ? 'users.acl' : 'explain-users.acl');
}

/** The local passwords; throws, saying what to run, when the stack has none yet. */
export function readPasswords(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const file = passwordsFile(env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(
      `no Redis ACL passwords at ${file}: start the local stack (bash infra/local/stack.sh up), ` +
        'which creates the services’ users',
      { cause: err },
    );
  }
  return Object.fromEntries(
    text
      .split('\n')
      .map((l) => /^([A-Z0-9_]+)=(\S+)$/.exec(l.trim()))
      .filter((m) => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
}

/**
 * `url` logged in as `login`, unless it already names a user (a caller that chose one, e.g. a
 * test of the ACL itself, keeps its choice).
 */
function as(url: string, login: Login, passwords: () => Record<string, string>): string {
  const u = new URL(url);
  if (u.username || u.password) return url;
  const password = passwords()[login.password];
  if (!password)
    throw new Error(`no ${login.password} in the local passwords: run bash infra/local/redis.sh start`);
  u.username = login.user;
  u.password = password;
  return u.toString();
}

/**
 * REDIS_URL, LEDGER_REDIS_URL (when set: the ledger server loads the same users) and, for the
 * services that use the cache server, EXPLAIN_REDIS_URL of `service`, each with its user and
 * password. `env` is the environment the service would get; unset URLs take the config defaults.
 * The passwords file is read only if a URL names no user yet.
 */
export function serviceRedisEnv(
  service: RedisService,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const { durable, cache } = LOGINS[service];
  let read: Record<string, string> | undefined;
  const passwords = () => (read ??= readPasswords(env));
  const out: Record<string, string> = {
    REDIS_URL: as(env.REDIS_URL ?? DEFAULT_REDIS_URL, durable, passwords),
  };
  if (env.LEDGER_REDIS_URL) out.LEDGER_REDIS_URL = as(env.LEDGER_REDIS_URL, durable, passwords);
  if (cache) out.EXPLAIN_REDIS_URL = as(env.EXPLAIN_REDIS_URL ?? DEFAULT_EXPLAIN_REDIS_URL, cache, passwords);
  return out;
}
