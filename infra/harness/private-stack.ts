import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ensureTopics } from '../kafka/topics.ts';
import { migrate } from '../clickhouse/migrate.ts';
import { createClickHouse, type ClickHouseClient } from '../../shared/clients/clickhouse.ts';
import { freePort, waitFor } from './processes.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

/**
 * Kafka jars are resolved once per checkout. A git worktree shares them with its main checkout
 * (the common git dir's parent); a plain checkout, as in CI, uses its own `.stack/kafka/libs`.
 */
function kafkaLibs(): string {
  if (process.env.FRS_KAFKA_LIBS) return process.env.FRS_KAFKA_LIBS;
  const common = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
    cwd: ROOT,
  })
    .toString()
    .trim();
  const libs = join(dirname(common), '.stack/kafka/libs');
  return existsSync(libs) ? libs : join(ROOT, '.stack/kafka/libs');
}

/**
 * A Kafka broker and a ClickHouse server of a test's own, on free ports under
 * `.stack/fault-<name>`, so fault tests can stop and start them without touching the shared
 * servers other tests and engineers use.
 */
export interface PrivateStack {
  dir: string;
  env: Record<string, string>;
  kafkaBrokers: string;
  clickhouseUrl: string;
  ch: ClickHouseClient;
  kafka: (cmd: 'start' | 'stop') => Promise<void>;
  /** `kill` is a crash (SIGKILL), the way to take ClickHouse down at once. */
  clickhouse: (cmd: 'start' | 'stop' | 'kill') => Promise<void>;
  down: () => Promise<void>;
}

export async function startPrivateStack(name: string, database: string): Promise<PrivateStack> {
  const dir = join(ROOT, '.stack', `fault-${name}`);
  rmSync(dir, { recursive: true, force: true });
  const ports = {
    kafka: await freePort(),
    controller: await freePort(),
    http: await freePort(),
    tcp: await freePort(),
  };
  const scriptEnv = {
    ...process.env,
    FRS_STACK_DIR: dir,
    FRS_KAFKA_LIBS: kafkaLibs(),
    FRS_KAFKA_PORT: String(ports.kafka),
    FRS_KAFKA_CONTROLLER_PORT: String(ports.controller),
    FRS_CLICKHOUSE_HTTP_PORT: String(ports.http),
    FRS_CLICKHOUSE_TCP_PORT: String(ports.tcp),
  };
  const script = (server: string) => async (cmd: 'start' | 'stop') => {
    await run('bash', [join(ROOT, 'infra/local', `${server}.sh`), cmd], { env: scriptEnv });
  };
  const kafkaBrokers = `127.0.0.1:${ports.kafka}`;
  const clickhouseUrl = `http://127.0.0.1:${ports.http}`;
  const kafka = script('kafka');
  const chScript = script('clickhouse');
  const clickhouse = async (cmd: 'start' | 'stop' | 'kill') => {
    if (cmd !== 'kill') return chScript(cmd);
    const pidfile = join(dir, 'clickhouse/pid');
    process.kill(Number(readFileSync(pidfile, 'utf8').trim()), 'SIGKILL');
    rmSync(pidfile);
    await waitFor(
      'clickhouse to die',
      async () =>
        !(await fetch(`${clickhouseUrl}/ping`).then(
          () => true,
          () => false,
        )),
    );
  };
  await Promise.all([kafka('start'), clickhouse('start')]);
  const ch = createClickHouse(clickhouseUrl);
  await migrate(ch, database, () => undefined);
  await ensureTopics([kafkaBrokers]);
  return {
    dir,
    env: { KAFKA_BROKERS: kafkaBrokers, CLICKHOUSE_URL: clickhouseUrl, CLICKHOUSE_DATABASE: database },
    kafkaBrokers,
    clickhouseUrl,
    ch,
    kafka,
    clickhouse,
    down: async () => {
      await ch.close();
      await Promise.allSettled([kafka('stop'), clickhouse('kill')]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
