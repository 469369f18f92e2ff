/**
 * Applies the numbered migrations in infra/clickhouse/migrations in order, once each.
 *
 * Each file holds statements separated by a line that is exactly `;`-terminated; `{db}` stands for
 * the database name. Applied versions are recorded in `{db}.schema_migrations`, so a second run is a
 * no-op. A statement preceded by `-- requires: ttl` runs only on servers that support TTL
 * (19.6+); 18.16 relies on the retention job instead.
 *
 * Every statement is a step with a check (cluster-ddl.ts): each host is asked whether it has the
 * step (system.tables, system.columns) and given it only where it is missing, so a run that stopped
 * half-way, on some hosts and not others, is finished by the next. A step is tried a bounded number
 * of times, each statement and each wait bounded, and a migration is recorded only once every host
 * has every step of it; otherwise the run fails naming the migration, the host and what to do.
 *
 * With a cluster name (CLICKHOUSE_CLUSTER) the hosts are the nodes of CLICKHOUSE_URL, each asked for
 * itself (no ON CLUSTER, whose DDL tasks 18.16 can leave waiting forever), and the ledger is one
 * replicated table every node shares.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../../shared/config.ts';
import { clickHouseNodes, serverVersion, type ClickHouseClient } from '../../shared/clients/clickhouse.ts';
import { AppliedMigrationRow, CountRow, ReplicaPathRow, readRows } from '../../shared/clickhouse/rows.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { clusterSteps, singleSteps, type Step } from './cluster-ddl.ts';

const MIGRATIONS_DIR = join(import.meta.dirname, 'migrations');

export interface Migration {
  version: number;
  name: string;
  statements: { sql: string; requiresTtl: boolean }[];
}

/** One server the migrations must reach, named for the error line (its URL). */
export interface Host {
  name: string;
  client: ClickHouseClient;
}

export interface MigrateOptions {
  /** Every node of the cluster (default: `ch` alone); each is checked and given what it lacks. */
  hosts?: Host[];
  /** The migrations to bring the hosts to (default: all of infra/clickhouse/migrations). */
  migrations?: Migration[];
  /** Tries of one step before the run fails (default 3). */
  attempts?: number;
  /** How long one statement, and the wait for the hosts to show a step, may take (default 30 s). */
  boundMs?: number;
}

/** A migration that could not be completed: which, where and what to do, on one line. */
export class MigrationError extends Error {
  readonly migration: string;
  readonly host: string;
  constructor(migration: string, host: string, detail: string) {
    super(
      `${migration}: ${detail} on ${host}. Check that server (its log, its ZooKeeper session) and ` +
        `start again: what is applied is kept, the rest is applied`,
    );
    this.name = 'MigrationError';
    this.migration = migration;
    this.host = host;
  }
}

/** What the ledger's own steps are reported as. */
const LEDGER = 'schema_migrations (the migrations ledger)';

export async function loadMigrations(db: string): Promise<Migration[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).sort();
  const out: Migration[] = [];
  for (const file of files) {
    const text = (await readFile(join(MIGRATIONS_DIR, file), 'utf8')).replaceAll('{db}', db);
    const statements = text
      .split(/;\s*$/m)
      .map((s) => s.trim())
      .filter((s) => s.replace(/--.*$/gm, '').trim().length > 0)
      .map((sql) => ({ sql, requiresTtl: /^--\s*requires:\s*ttl\b/m.test(sql) }));
    out.push({ version: Number(file.slice(0, 3)), name: file, statements });
  }
  return out;
}

/** The migrations ledger: on a cluster, one replica group of all nodes (no {shard} in its path). */
function ledgerSteps(db: string, cluster: string | undefined): Step[] {
  const columns = '(version UInt32, name String, applied_at DateTime DEFAULT now())';
  const engine = cluster
    ? `ReplicatedMergeTree('/clickhouse/tables/all/${db}/schema_migrations', '{replica}')`
    : 'MergeTree';
  return [
    {
      what: `database ${db}`,
      sql: [`CREATE DATABASE IF NOT EXISTS ${db}`],
      done: `SELECT count() AS n FROM system.databases WHERE name = '${db}'`,
    },
    {
      what: 'table schema_migrations',
      sql: [
        `CREATE TABLE IF NOT EXISTS ${db}.schema_migrations ${columns} ENGINE = ${engine} ORDER BY version`,
      ],
      done: `SELECT count() AS n FROM system.tables WHERE database = '${db}' AND name = 'schema_migrations'`,
    },
  ];
}

const message = (err: unknown) => errorMessage(err).split('\n')[0]!;

/** Applies steps where they are missing, in order, each bounded; throws MigrationError otherwise. */
class StepRunner {
  private readonly hosts: Host[];
  private readonly attempts: number;
  private readonly boundMs: number;
  constructor(hosts: Host[], attempts: number, boundMs: number) {
    this.hosts = hosts;
    this.attempts = attempts;
    this.boundMs = boundMs;
  }

  private async run(host: Host, sql: string): Promise<void> {
    await host.client.command({ query: sql, abort_signal: AbortSignal.timeout(this.boundMs) });
  }

  private async isDone(host: Host, step: Step): Promise<boolean> {
    const rs = await host.client.query({
      query: step.done!,
      format: 'JSONEachRow',
      abort_signal: AbortSignal.timeout(this.boundMs),
    });
    return (await readRows(rs, CountRow))[0]?.n === 1;
  }

  /** The hosts of `among` grouped by their replicated table's ZooKeeper path (a host alone otherwise). */
  private async replicaGroups(among: Host[], table: { database: string; table: string }): Promise<Host[][]> {
    const groups = new Map<string, Host[]>();
    for (const host of among) {
      const path = await host.client
        .query({
          query: `SELECT zookeeper_path FROM system.replicas WHERE database = '${table.database}' AND table = '${table.table}'`,
          format: 'JSONEachRow',
          abort_signal: AbortSignal.timeout(this.boundMs),
        })
        .then((rs) => readRows(rs, ReplicaPathRow))
        .then(
          (rows) => rows[0]?.zookeeper_path,
          () => undefined, // not answering: a group of its own, which the next step's check reports
        );
      const key = path ?? `host:${host.name}`;
      groups.set(key, [...(groups.get(key) ?? []), host]);
    }
    return [...groups.values()];
  }

  /** The hosts that lack the step, asked in parallel; a host that does not answer lacks it. */
  private async missing(step: Step, ran: Set<Host>, errors: Map<Host, string>): Promise<Host[]> {
    if (!step.done) return this.hosts.filter((h) => !ran.has(h));
    const answers = await Promise.all(
      this.hosts.map((h) =>
        this.isDone(h, step).catch((err: unknown) => {
          errors.set(h, message(err));
          return false;
        }),
      ),
    );
    return this.hosts.filter((_, i) => !answers[i]);
  }

  async apply(migration: string, step: Step): Promise<void> {
    const ran = new Set<Host>();
    const errors = new Map<Host, string>();
    for (let attempt = 1; ; attempt++) {
      let pending = await this.missing(step, ran, errors);
      if (pending.length === 0) return;
      if (attempt > this.attempts) {
        const host = pending[0]!;
        const why = errors.get(host) ?? 'it did not show the change within the wait';
        throw new MigrationError(
          migration,
          host.name,
          `${step.what} still missing after ${this.attempts} tries (${why})`,
        );
      }
      // A replicated change goes to one replica of each group; on a retry, to every host still
      // without it, whatever its peers did: nothing waits on another host's task.
      let targets = pending;
      if (step.replicated && attempt === 1) {
        const groups = await this.replicaGroups(this.hosts, step.replicated);
        targets = groups
          .filter((g) => g.every((h) => pending.includes(h)))
          .map((g) => g[0]!)
          .filter(Boolean);
        if (!step.done) for (const g of groups) for (const h of g) if (!targets.includes(h)) ran.add(h);
      }
      await Promise.all(
        targets.map(async (host) => {
          try {
            for (const sql of step.sql) await this.run(host, sql);
            ran.add(host);
          } catch (err) {
            errors.set(host, message(err));
          }
        }),
      );
      if (!step.done) continue;
      // Bounded wait for what replication brings to the other replicas.
      const until = Date.now() + this.boundMs;
      while (Date.now() < until) {
        pending = await this.missing(step, ran, errors);
        if (pending.length === 0) return;
        await sleep(250);
      }
    }
  }
}

export async function migrate(
  ch: ClickHouseClient,
  db: string,
  log = (m: string) => console.error(m),
  cluster?: string,
  options: MigrateOptions = {},
) {
  const hosts = options.hosts ?? [{ name: 'clickhouse', client: ch }];
  const runner = new StepRunner(hosts, options.attempts ?? 3, options.boundMs ?? 30_000);
  const [major, minor] = await serverVersion(ch);
  const supportsTtl = major > 19 || (major === 19 && minor >= 6);
  for (const step of ledgerSteps(db, cluster)) await runner.apply(LEDGER, step);
  // A migration recorded on any host was complete on every host (replication brings the row to
  // the others), so the ledgers' union is what is applied.
  const applied = new Set<number>();
  for (const host of hosts) {
    try {
      const rs = await host.client.query({
        query: `SELECT version FROM ${db}.schema_migrations`,
        format: 'JSONEachRow',
        abort_signal: AbortSignal.timeout(options.boundMs ?? 30_000),
      });
      for (const r of await readRows(rs, AppliedMigrationRow)) applied.add(r.version);
    } catch (err) {
      throw new MigrationError(LEDGER, host.name, `unreadable (${message(err)})`);
    }
  }
  let count = 0;
  for (const m of options.migrations ?? (await loadMigrations(db))) {
    if (applied.has(m.version)) continue;
    for (const s of m.statements) {
      if (s.requiresTtl && !supportsTtl) continue;
      const steps = cluster ? clusterSteps(s.sql, { cluster, database: db }) : singleSteps(s.sql);
      for (const step of steps) await runner.apply(m.name, step);
    }
    await hosts[0]!.client.insert({
      table: `${db}.schema_migrations`,
      values: [{ version: m.version, name: m.name }],
      format: 'JSONEachRow',
    });
    log(`[migrate] applied ${m.name}`);
    count++;
  }
  return count;
}

/** A host per node of a comma list of URLs, named by its URL. */
export function urlHosts(url: string, requestTimeoutMs: number): Host[] {
  const urls = url.split(',').map((u) => u.trim());
  // Quiet: a host out of reach is reported once, by the error line, not by the client per request.
  return clickHouseNodes(url, { requestTimeoutMs, quiet: true }).map((client, i) => ({
    name: urls[i]!,
    client,
  }));
}

if (import.meta.main) {
  const cfg = loadConfig();
  const hosts = urlHosts(cfg.CLICKHOUSE_URL, 120_000);
  // One server, or every node of the cluster; each is asked for itself.
  const all = cfg.CLICKHOUSE_CLUSTER ? hosts : hosts.slice(0, 1);
  try {
    const n = await migrate(all[0]!.client, cfg.CLICKHOUSE_DATABASE, undefined, cfg.CLICKHOUSE_CLUSTER, {
      hosts: all,
    });
    console.error(`[stack] clickhouse schema up to date (${n} migration(s) applied)`);
  } catch (err) {
    // One line, for start.ts to pass on: which migration, which host, what to do.
    console.error(`[migrate] ${err instanceof MigrationError ? err.message : `failed: ${message(err)}`}`);
    process.exitCode = 1;
  } finally {
    await Promise.all(hosts.map((h) => h.client.close()));
  }
}
