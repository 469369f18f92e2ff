/**
 * Baseline (d): an Express server doing the I/O a scoring request does with the same clients, and
 * nothing else: it parses the JSON body, sends one auto-pipelined Redis round trip of three
 * commands (where the API sends the controls script and the two ledger HMGETs), writes a copy to
 * the cache Redis without waiting (the explain copy), and answers a score-sized JSON body once a
 * Kafka producer acknowledged a record (acks=all, gzip, one sendBatch in flight taking every record
 * published meanwhile, as the audit publisher does). No auth, validation, scoring or journal.
 *
 * What (c) costs above (d) is the service's own code; what (d) costs above (b) is the floor the
 * chosen clients (ioredis, kafkajs) set for this shape of request.
 */
import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import express from 'express';
import { CompressionTypes } from 'kafkajs';
import { createKafka } from '../../shared/clients/kafka.ts';
import { createRedis } from '../../shared/clients/redis.ts';
import { loadConfig } from '../../shared/config.ts';
import { forkWorkers } from './workers.ts';

const port = Number(process.env.PORT ?? 9303);
export const IO_BENCH_TOPIC = 'bench.io';

if (cluster.isPrimary) {
  const cfg = loadConfig();
  const admin = createKafka(cfg.KAFKA_BROKERS, 'frs-bench-io-admin').admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: IO_BENCH_TOPIC, numPartitions: 2 }] });
  await admin.disconnect();
  forkWorkers();
} else {
  const cfg = loadConfig();
  const redis = createRedis(cfg.REDIS_URL, { connectionName: 'frs-bench-io', failFast: true });
  const cache = createRedis(cfg.EXPLAIN_REDIS_URL, { connectionName: 'frs-bench-io-cache', failFast: true });
  const producer = createKafka(cfg.KAFKA_BROKERS, `frs-bench-io-${process.pid}`).producer();
  await producer.connect();

  // Group commit: one sendBatch in flight, the next takes every record published meanwhile.
  let queue: { value: string; done: () => void; fail: (e: Error) => void }[] = [];
  let sending = false;
  const pump = (): void => {
    if (sending || queue.length === 0) return;
    const batch = queue;
    queue = [];
    sending = true;
    producer
      .sendBatch({
        acks: -1,
        compression: CompressionTypes.GZIP,
        topicMessages: [{ topic: IO_BENCH_TOPIC, messages: batch.map((r) => ({ value: r.value })) }],
      })
      .then(
        () => batch.forEach((r) => r.done()),
        (err: Error) => batch.forEach((r) => r.fail(err)),
      )
      .finally(() => {
        sending = false;
        pump();
      });
  };
  const publish = (value: string) =>
    new Promise<void>((done, fail) => {
      queue.push({ value, done, fail });
      setImmediate(pump);
    });

  // A response of the size and shape of a score (about 1.2 KB of JSON).
  const components = Array.from({ length: 6 }, (_, i) => ({
    key: `component_${i}`,
    verdict: 'clear',
    points: 0,
    status: 'ok',
    reason_codes: [],
    detail: { source: 'bench', note: 'x'.repeat(60) },
  }));
  const app = express();
  app.get('/', (_req, res) => {
    res.json({ ok: true });
  });
  app.use(express.json());
  app.post('/v1/score', async (req, res) => {
    const scoreId = randomUUID();
    const subject = JSON.stringify((req.body as { subject?: unknown }).subject ?? null);
    const now = Math.floor(Date.now() / 1000);
    await Promise.all([
      redis.incr(`bench:io:rate:${now % 60}`),
      redis.hmget('bench:io:ledger', subject.slice(0, 16), subject.slice(-16)),
      redis.hmget('bench:io:reports', subject.slice(0, 16), subject.slice(-16)),
    ]);
    const body = JSON.stringify({ score_id: scoreId, score: 12, band: 'low', components });
    cache.set(`bench:io:copy:${scoreId}`, body, 'EX', 60).catch(() => undefined);
    await publish(JSON.stringify({ score_id: scoreId, subject, response: body }));
    res.type('application/json').send(body);
  });
  app.listen(port, '127.0.0.1');
}
