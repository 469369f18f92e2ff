import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PublisherState } from '../../services/api/audit-publisher-state.ts';
import { scrape } from './metrics.ts';
import { startPrivateStack, type PrivateStack } from '../../infra/harness/private-stack.ts';
import { startApi, startSink, type ApiNode, type Service } from '../../infra/harness/processes.ts';
import { holdLoadUntilAnswered, type Stream } from '../../infra/harness/stream.ts';
import { waitFor } from '../../infra/harness/wait.ts';

/** What the sink logs when an insert into ClickHouse failed and will be retried. */
const INSERT_RETRY = 'clickhouse insert failed; retrying';

/**
 * A private Kafka and ClickHouse, a sink on them, and API nodes whose journal survives their
 * restarts: the set-up of the fault tests of the score and outcome pipelines
 * (audit-faults.test.ts, outcomes-faults.test.ts).
 */
export interface FaultPipeline {
  stack: PrivateStack;
  sink: Service;
  /** An API node with a fixed NODE_ID and its journal under `journalRoot`, so a restart replays it. */
  node: (journalRoot: string) => Promise<ApiNode>;
  /** A fresh journal root, removed by `down`. */
  journalRoot: () => string;
  /** The journal segments under `journalRoot` (`sub`: the outcome journal's folder). */
  segments: (journalRoot: string, sub?: string) => string[];
  /** Until `api`'s `publisher` is in `state`, as its /metrics says (frs_audit_publisher_state). */
  untilPublisher: (api: ApiNode, publisher: Publisher, state: PublisherState) => Promise<void>;
  /**
   * Under `stream`'s load (`rps`): 1.5 s' worth of answers with Kafka up; Kafka stopped until the
   * node's `publisher` turns to its journal (`spilling`) and for 1.5 s' worth of answers more;
   * started again, 2 s' worth of answers after, and until the publisher replayed its journal and
   * sends directly again. Whether every answer then lands is the test's to wait for and check.
   */
  kafkaOutage: (api: ApiNode, stream: Stream, rps: number, publisher: Publisher) => Promise<void>;
  /**
   * The same with ClickHouse crashed (SIGKILL) until the sink retried an insert and for 2 s' worth
   * of answers more, then started, and 1.5 s' worth of answers after.
   */
  clickhouseOutage: (stream: Stream, rps: number) => Promise<void>;
  /** `wait`, failing with the tail of the sink's log appended: a stuck sink says why it is stuck. */
  withSinkLog: <T>(wait: Promise<T>) => Promise<T>;
  down: () => Promise<void>;
}

/** The API node's audit publishers, as /metrics labels them. */
export type Publisher = 'scores' | 'outcomes';

/** The state `api`'s `publisher` reports on /metrics. */
async function publisherState(api: ApiNode, publisher: Publisher): Promise<string | undefined> {
  const s = await scrape(api.url);
  return s.samples.find(
    (x) => x.name === 'frs_audit_publisher_state' && x.labels.publisher === publisher && x.value === 1,
  )?.labels.state;
}

export async function startFaultPipeline(
  name: string,
  database: string,
  sinkGroup: string,
): Promise<FaultPipeline> {
  const stack = await startPrivateStack(name, database);
  const sink = startSink({ ...stack.env, AUDIT_SINK_GROUP: sinkGroup });
  const journals: string[] = [];
  const insertRetries = () => sink.output().split(INSERT_RETRY).length - 1;
  const untilPublisher = async (api: ApiNode, publisher: Publisher, state: PublisherState) => {
    await waitFor(
      `the ${publisher} publisher to be ${state}`,
      async () => (await publisherState(api, publisher)) === state,
      60_000,
    );
  };
  const withSinkLog = async <T>(wait: Promise<T>): Promise<T> => {
    try {
      return await wait;
    } catch (err) {
      throw new Error(`${String(err)}\nthe sink's last output:\n${sink.output().slice(-4000)}`, {
        cause: err,
      });
    }
  };
  return {
    stack,
    sink,
    withSinkLog,
    node: (journalRoot) => startApi({ ...stack.env, AUDIT_JOURNAL_DIR: journalRoot, NODE_ID: 'fault-node' }),
    journalRoot: () => {
      const dir = mkdtempSync(join(tmpdir(), 'frs-journal-'));
      journals.push(dir);
      return dir;
    },
    segments: (journalRoot, sub = '') =>
      readdirSync(join(journalRoot, sub, 'fault-node')).filter((f) => f.startsWith('seg-')),
    untilPublisher,
    kafkaOutage: async (api, stream, rps, publisher) => {
      await holdLoadUntilAnswered(stream, rps * 1.5);
      await stack.kafka('stop');
      await untilPublisher(api, publisher, 'spilling');
      // Journalled answers; the old fixed 3 s of outage also had to cover noticing it.
      await holdLoadUntilAnswered(stream, rps * 1.5);
      await stack.kafka('start');
      await holdLoadUntilAnswered(stream, rps * 2);
      await untilPublisher(api, publisher, 'direct');
    },
    clickhouseOutage: async (stream, rps) => {
      await holdLoadUntilAnswered(stream, rps * 1.5);
      const retries = insertRetries();
      // A crash, not a clean stop: ClickHouse 18.16 holds a SIGTERM for 30 s while clients are connected.
      await stack.clickhouse('kill');
      await withSinkLog(
        waitFor('the sink to retry a ClickHouse insert', async () => insertRetries() > retries, 60_000),
      );
      await holdLoadUntilAnswered(stream, rps * 2);
      await stack.clickhouse('start');
      await holdLoadUntilAnswered(stream, rps * 1.5);
    },
    down: async () => {
      await sink.stop();
      await stack.down();
      for (const j of journals) rmSync(j, { recursive: true, force: true });
    },
  };
}
