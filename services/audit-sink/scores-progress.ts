/**
 * How far the sink group has stored `scores.v1`: a watermark is the end offset of every partition
 * at one moment; the group has reached it once its committed offsets (moved only after ClickHouse
 * took a batch) are at or past it. Every score answered before the watermark was taken is then in
 * ClickHouse, unless it was still in an API node's journal (Kafka was down).
 */
import type { Admin, Kafka } from 'kafkajs';
import { SCORES_TOPIC } from '../../shared/clients/kafka.ts';

export type Watermark = ReadonlyMap<number, bigint>;

export class ScoresProgress {
  private readonly admin: Admin;
  private readonly groupId: string;
  private connected: Promise<void> | undefined;

  constructor(kafka: Kafka, groupId: string) {
    this.admin = kafka.admin();
    this.groupId = groupId;
  }

  private async ready(): Promise<Admin> {
    this.connected ??= this.admin.connect().catch((err: unknown) => {
      this.connected = undefined;
      throw err;
    });
    await this.connected;
    return this.admin;
  }

  async watermark(): Promise<Watermark> {
    const admin = await this.ready();
    const ends = await admin.fetchTopicOffsets(SCORES_TOPIC);
    return new Map(ends.map((p) => [p.partition, BigInt(p.high)]));
  }

  async reached(watermark: Watermark): Promise<boolean> {
    const admin = await this.ready();
    const [committed] = await admin.fetchOffsets({ groupId: this.groupId, topics: [SCORES_TOPIC] });
    const done = new Map(committed?.partitions.map((p) => [p.partition, BigInt(p.offset)]));
    let low: Map<number, bigint> | undefined;
    for (const [partition, high] of watermark) {
      let at = done.get(partition) ?? -1n;
      if (at < 0n) {
        // Nothing committed: reached only if the partition keeps nothing below the watermark.
        low ??= new Map(
          (await admin.fetchTopicOffsets(SCORES_TOPIC)).map((p) => [p.partition, BigInt(p.low)]),
        );
        at = low.get(partition) ?? 0n;
      }
      if (at < high) return false;
    }
    return true;
  }

  async close(): Promise<void> {
    if (this.connected) await this.admin.disconnect();
  }
}
