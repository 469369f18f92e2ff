/**
 * Inspect and replay `scores.v1.dlq`. Prints JSON lines on stdout.
 *
 *   npm run --silent dlq -- list [--repair] > dlq.jsonl
 *       Every record now on the DLQ, one JSON object a line: partition, offset, key, the reason
 *       headers, and the value (`value` as text, or `value_base64` when it is not UTF-8). With
 *       --repair, each string in a JSON value that is not storable has its offending characters
 *       replaced by U+FFFD (see shared/contract/storable-text.ts), and `repaired` says so.
 *   npm run --silent dlq -- replay --file dlq.jsonl
 *       Re-publishes each line's value (fixed by hand or by --repair) to `scores.v1`, keyed as
 *       before, with header x-dlq-replayed-from. A line whose value is still not an audit record
 *       is refused and nothing is published. The sink stores replayed records like any other;
 *       one ClickHouse still refuses goes back to the DLQ.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { KafkaMessage } from 'kafkajs';
import { createKafka, kafkaSecurity, SCORES_DLQ_TOPIC, SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import { loadConfig } from '../../shared/config.ts';
import { toStorable } from '../../shared/contract/storable-text.ts';
import { decode } from './sink.ts';
import { errorMessage } from '../../shared/error-message.ts';

interface DlqLine {
  partition: number;
  offset: string;
  key: string | null;
  headers: Record<string, string>;
  value?: string;
  value_base64?: string;
  repaired?: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function repairJson(value: string): { value: string; repaired: boolean } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return { value, repaired: false };
  }
  let repaired = false;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const fixed = toStorable(v);
      if (fixed !== v) repaired = true;
      return fixed;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [toStorable(k), walk(x)]));
    return v;
  };
  const fixed = JSON.stringify(walk(parsed));
  return repaired ? { value: fixed, repaired } : { value, repaired };
}

function toLine(partition: number, m: KafkaMessage, repair: boolean): DlqLine {
  const headers = Object.fromEntries(Object.entries(m.headers ?? {}).map(([k, v]) => [k, String(v)]));
  const line: DlqLine = { partition, offset: m.offset, key: m.key ? m.key.toString('utf8') : null, headers };
  let text: string | undefined;
  try {
    text = m.value ? utf8.decode(m.value) : '';
  } catch {
    line.value_base64 = m.value!.toString('base64');
    return line;
  }
  if (repair) {
    const r = repairJson(text);
    line.value = r.value;
    line.repaired = r.repaired;
  } else line.value = text;
  return line;
}

async function list(brokers: string[], repair: boolean): Promise<void> {
  const kafka = createKafka(brokers, 'frs-dlq-cli', kafkaSecurity(cfg));
  const admin = kafka.admin();
  await admin.connect();
  const ends = new Map(
    (await admin.fetchTopicOffsets(SCORES_DLQ_TOPIC)).map((p) => [p.partition, BigInt(p.high)]),
  );
  const remaining = new Set([...ends].filter(([, high]) => high > 0n).map(([p]) => p));
  if (remaining.size === 0) return void (await admin.disconnect());
  // A throwaway group that reads from the beginning and is deleted afterwards.
  const groupId = `frs-dlq-cli-${randomUUID()}`;
  const consumer = kafka.consumer({ groupId });
  await consumer.connect();
  await consumer.subscribe({ topic: SCORES_DLQ_TOPIC, fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        eachMessage: async ({ partition, message }) => {
          process.stdout.write(`${JSON.stringify(toLine(partition, message, repair))}\n`);
          if (BigInt(message.offset) + 1n >= ends.get(partition)!) remaining.delete(partition);
          if (remaining.size === 0) resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  await admin.deleteGroups([groupId]).catch(() => undefined);
  await admin.disconnect();
}

async function replay(brokers: string[], file: string): Promise<void> {
  const lines = readFileSync(file === '-' ? 0 : file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as DlqLine);
  const messages = [];
  const refused: string[] = [];
  for (const l of lines) {
    const value =
      l.value_base64 !== undefined ? Buffer.from(l.value_base64, 'base64') : Buffer.from(l.value ?? '');
    const d = decode({ value } as KafkaMessage);
    if (!d.ok) refused.push(`partition ${l.partition} offset ${l.offset}: ${d.reason}`);
    messages.push({
      key: l.key,
      value,
      headers: { 'x-dlq-replayed-from': `${SCORES_DLQ_TOPIC}/${l.partition}/${l.offset}` },
    });
  }
  if (refused.length > 0)
    throw new Error(`not replayed, these are still not audit records:\n${refused.join('\n')}`);
  const producer = createKafka(brokers, 'frs-dlq-cli', kafkaSecurity(cfg)).producer({
    idempotent: true,
    maxInFlightRequests: 1,
  });
  await producer.connect();
  // One record per send, so each send has one partition: kafkajs 2.2.4 resolves a send that spans
  // several leaders without writing the records of a partition whose leadership moved, during
  // the send, to a broker that had already answered it (seen with a partition leader SIGKILLed
  // on a three-broker cluster: a third of a batch acknowledged and missing; docs/scale-out.md).
  for (const message of messages) await producer.send({ topic: SCORES_TOPIC, acks: -1, messages: [message] });
  await producer.disconnect();
  process.stdout.write(`${JSON.stringify({ replayed: messages.length })}\n`);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { repair: { type: 'boolean', default: false }, file: { type: 'string' } },
});
const cfg = loadConfig();
try {
  if (positionals[0] === 'list') await list(cfg.KAFKA_BROKERS, values.repair);
  else if (positionals[0] === 'replay' && values.file) await replay(cfg.KAFKA_BROKERS, values.file);
  else {
    console.error('usage: dlq list [--repair] | dlq replay --file FILE (- for stdin)');
    process.exit(2);
  }
} catch (err) {
  console.error(`dlq: ${errorMessage(err)}`);
  process.exit(1);
}
