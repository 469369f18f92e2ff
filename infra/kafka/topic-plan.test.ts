import { describe, expect, it } from 'vitest';
import { planTopic, type TopicSpec, type TopicState } from './topic-plan.ts';

const spec = (replicationFactor: number, minIsr: number): TopicSpec => ({
  topic: 'scores.v1',
  numPartitions: 3,
  replicationFactor,
  configEntries: [
    { name: 'retention.ms', value: '604800000' },
    { name: 'min.insync.replicas', value: String(minIsr) },
  ],
});
const state = (over: Partial<TopicState> = {}): TopicState => ({
  partitions: 3,
  replicationFactor: 3,
  effective: { 'retention.ms': '604800000', 'min.insync.replicas': '2', 'cleanup.policy': 'delete' },
  overrides: { 'retention.ms': '604800000', 'min.insync.replicas': '2' },
  ...over,
});

describe('planTopic', () => {
  it('changes nothing on a topic that matches', () => {
    expect(planTopic(spec(3, 2), state())).toEqual({ problems: [] });
  });

  it('raises min.insync.replicas, keeping the other overrides AlterConfigs would reset', () => {
    const before = state({
      effective: { 'retention.ms': '604800000', 'min.insync.replicas': '1', 'segment.ms': '3600000' },
      overrides: { 'retention.ms': '604800000', 'segment.ms': '3600000' },
    });
    expect(planTopic(spec(3, 2), before)).toEqual({
      overrides: { 'retention.ms': '604800000', 'segment.ms': '3600000', 'min.insync.replicas': '2' },
      problems: [],
    });
  });

  it('grows partitions but never shrinks them', () => {
    expect(planTopic(spec(3, 2), state({ partitions: 1 })).partitions).toBe(3);
    expect(planTopic(spec(3, 2), state({ partitions: 6 })).partitions).toBeUndefined();
  });

  it('reports a replication factor it cannot change, and a min ISR above it', () => {
    const plan = planTopic(
      spec(3, 2),
      state({ replicationFactor: 1, effective: { 'retention.ms': '604800000', 'min.insync.replicas': '1' } }),
    );
    expect(plan.overrides).toBeUndefined();
    expect(plan.problems).toEqual([
      expect.stringMatching(/replication factor 1, configured 3; only a partition reassignment/),
      expect.stringMatching(/min.insync.replicas 2 left at 1: above the topic's replication factor 1/),
    ]);
  });
});
