import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPrivateStack, type PrivateStack } from './private-stack.ts';
import { startApi, startSink, type ApiNode, type Service } from './processes.ts';
import { holdLoadUntilAnswered, type Stream, type StreamResult } from './stream.ts';
import { waitFor } from './wait.ts';

/** What the API node logs when Kafka is unreachable and its records go to the journal. */
const SPILLING = 'kafka unreachable; audit records go to the journal';
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
  /** Until `api` says Kafka is unreachable and its records go to the journal. */
  untilSpilling: (api: ApiNode) => Promise<void>;
  /**
   * Under `stream`'s load (`rps`): 1.5 s' worth of answers with Kafka up; Kafka stopped until the
   * node turns to its journal and for 3 s' worth of answers more; started again until a record
   * answered after that reaches ClickHouse, and 1 s' worth of answers after.
   */
  kafkaOutage: (api: ApiNode, stream: Stream, rps: number, landed: Landed) => Promise<void>;
  /**
   * The same with ClickHouse crashed (SIGKILL) until the sink retried an insert and for 2 s' worth
   * of answers more.
   */
  clickhouseOutage: (stream: Stream, rps: number, landed: Landed) => Promise<void>;
  down: () => Promise<void>;
}

/** How to tell that an answer of the stream reached ClickHouse: its id, and the ids stored. */
export interface Landed {
  id: (r: StreamResult) => string | undefined;
  stored: () => Promise<string[]>;
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
  const untilSpilling = async (api: ApiNode) => {
    await waitFor('the node to turn to its journal', async () => api.output().includes(SPILLING), 60_000);
  };
  /** Until an answer `stream` got from now on is in ClickHouse: the pipeline carries records again. */
  const untilFlowing = async (stream: Stream, landed: Landed) => {
    const from = stream.results.length;
    await waitFor(
      'a record answered after the fault to reach ClickHouse',
      async () => {
        const fresh = new Set(stream.results.slice(from).map(landed.id));
        return (await landed.stored()).some((x) => fresh.has(x));
      },
      120_000,
      500,
    );
  };
  return {
    stack,
    sink,
    node: (journalRoot) => startApi({ ...stack.env, AUDIT_JOURNAL_DIR: journalRoot, NODE_ID: 'fault-node' }),
    journalRoot: () => {
      const dir = mkdtempSync(join(tmpdir(), 'frs-journal-'));
      journals.push(dir);
      return dir;
    },
    segments: (journalRoot, sub = '') =>
      readdirSync(join(journalRoot, sub, 'fault-node')).filter((f) => f.startsWith('seg-')),
    untilSpilling,
    kafkaOutage: async (api, stream, rps, landed) => {
      await holdLoadUntilAnswered(stream, rps * 1.5);
      await stack.kafka('stop');
      await untilSpilling(api);
      await holdLoadUntilAnswered(stream, rps * 3);
      await stack.kafka('start');
      await untilFlowing(stream, landed);
      await holdLoadUntilAnswered(stream, rps);
    },
    clickhouseOutage: async (stream, rps, landed) => {
      await holdLoadUntilAnswered(stream, rps * 1.5);
      const retries = insertRetries();
      // A crash, not a clean stop: ClickHouse 18.16 holds a SIGTERM for 30 s while clients are connected.
      await stack.clickhouse('kill');
      await waitFor('the sink to retry a ClickHouse insert', async () => insertRetries() > retries, 60_000);
      await holdLoadUntilAnswered(stream, rps * 2);
      await stack.clickhouse('start');
      await untilFlowing(stream, landed);
      await holdLoadUntilAnswered(stream, rps);
    },
    down: async () => {
      await sink.stop();
      await stack.down();
      for (const j of journals) rmSync(j, { recursive: true, force: true });
    },
  };
}
