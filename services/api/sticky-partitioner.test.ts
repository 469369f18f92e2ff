import type { PartitionMetadata } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { StickyPartitioner } from './sticky-partitioner.ts';

const meta = (leaders: number[]): PartitionMetadata[] =>
  leaders.map((leader, partitionId) => ({
    partitionErrorCode: 0,
    partitionId,
    leader,
    replicas: [leader],
    isr: [leader],
  }));

describe('StickyPartitioner', () => {
  const args = (partitionMetadata: PartitionMetadata[]) => ({
    topic: 'scores.v1',
    partitionMetadata,
    message: { key: 'sc_x', value: '{}' },
  });

  it('keeps every record of a batch on one partition and moves on with each batch', () => {
    const sticky = new StickyPartitioner();
    const partition = sticky.create();
    const seen: number[][] = [];
    for (let batch = 0; batch < 4; batch++) {
      sticky.advance();
      seen.push([0, 1, 2].map(() => partition(args(meta([1, 1, 1])))));
    }
    for (const b of seen) expect(new Set(b).size).toBe(1);
    expect(new Set(seen.map((b) => b[0])).size).toBe(3);
  });

  it('skips partitions without a leader', () => {
    const sticky = new StickyPartitioner();
    const partition = sticky.create();
    const chosen = new Set<number>();
    for (let batch = 0; batch < 6; batch++) {
      sticky.advance();
      chosen.add(partition(args(meta([1, -1, 1]))));
    }
    expect([...chosen].sort()).toEqual([0, 2]);
  });
});
