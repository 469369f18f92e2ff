import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ClickHouseClient } from '../../shared/clients/clickhouse.ts';

type Answer = { ok: true; out: string } | { ok: false; error: string };

/**
 * Current ClickHouse (26.x) in-process through chDB, driven by test/helpers/chdb_runner.py in the
 * venv that `infra/local/chdb.sh install` creates. `client()` speaks the subset of
 * @clickhouse/client the services use (query, command, insert), so the services' own functions
 * run their own SQL on it unchanged.
 */
export class Chdb {
  private readonly proc: ChildProcessWithoutNullStreams;
  private readonly dir: string;
  private readonly waiting: ((a: Answer) => void)[] = [];
  private chain: Promise<unknown> = Promise.resolve();

  private constructor() {
    const python = execFileSync('bash', ['infra/local/chdb.sh', 'python'], { encoding: 'utf8' }).trim();
    this.dir = mkdtempSync(join(tmpdir(), 'frs-chdb-'));
    this.proc = spawn(python, [join(import.meta.dirname, 'chdb_runner.py'), join(this.dir, 'db')]);
    this.proc.stderr.on('data', () => undefined);
    createInterface({ input: this.proc.stdout }).on('line', (line) => {
      this.waiting.shift()?.(JSON.parse(line) as Answer);
    });
    this.proc.on('exit', (code) => {
      for (const w of this.waiting.splice(0)) w({ ok: false, error: `chdb runner exited with ${code}` });
    });
  }

  static start(): Chdb {
    return new Chdb();
  }

  /** Runs one statement; rejects with ClickHouse's own error text (code and message). */
  run(sql: string, format?: string): Promise<string> {
    const next = this.chain.then(
      () =>
        new Promise<string>((resolve, reject) => {
          this.waiting.push((a) => (a.ok ? resolve(a.out) : reject(new Error(a.error))));
          this.proc.stdin.write(JSON.stringify({ sql, format }) + '\n');
        }),
    );
    this.chain = next.catch(() => undefined);
    return next;
  }

  client(): ClickHouseClient {
    const rows = (text: string) =>
      text
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as unknown);
    const client = {
      query: async ({ query, format }: { query: string; format?: string }) => {
        const out = await this.run(query, format ?? 'JSON');
        return {
          json: async () => (format === 'JSONEachRow' ? rows(out) : JSON.parse(out)),
          text: async () => out,
        };
      },
      command: async ({ query }: { query: string }) => {
        await this.run(query);
        return {};
      },
      // What @clickhouse/client sends for an insert: the statement, then the rows in the format.
      insert: async ({ table, values, format }: { table: string; values: unknown[]; format?: string }) => {
        const fmt = format ?? 'JSONCompactEachRow';
        await this.run(
          `INSERT INTO ${table} FORMAT ${fmt}\n${values.map((v) => JSON.stringify(v)).join('\n')}`,
        );
        return {};
      },
      close: async () => undefined,
    };
    return client as unknown as ClickHouseClient;
  }

  async close(): Promise<void> {
    this.proc.stdin.end();
    await new Promise((r) => (this.proc.exitCode === null ? this.proc.once('exit', r) : r(null)));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
