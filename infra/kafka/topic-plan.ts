/**
 * What reconciling one existing topic with its spec changes, and what it cannot. Kafka lets a
 * topic's configs be altered and its partitions grow; it cannot shrink partitions, and a topic's
 * replication factor only changes through a partition reassignment, which an operator runs with
 * its own throttles: those are reported, never attempted here.
 */
export interface TopicSpec {
  topic: string;
  numPartitions: number;
  replicationFactor: number;
  configEntries: { name: string; value: string }[];
}

/** A topic as the cluster has it. */
export interface TopicState {
  partitions: number;
  /** The smallest replica count of its partitions. */
  replicationFactor: number;
  /** Every config's effective value (overrides, broker settings and defaults). */
  effective: Record<string, string>;
  /** The topic's own overrides: AlterConfigs replaces them as a whole, so they are sent back. */
  overrides: Record<string, string>;
}

export interface TopicPlan {
  /** New partition count, when the topic has fewer than the spec. */
  partitions?: number;
  /** The topic's complete override set to write, when a config differs. */
  overrides?: Record<string, string>;
  /** Differences left as they are, for an operator. */
  problems: string[];
}

export function planTopic(spec: TopicSpec, state: TopicState): TopicPlan {
  const problems: string[] = [];
  if (state.replicationFactor !== spec.replicationFactor) {
    problems.push(
      `${spec.topic}: replication factor ${state.replicationFactor}, configured ${spec.replicationFactor}; ` +
        'only a partition reassignment (kafka-reassign-partitions) changes it',
    );
  }
  const changes: Record<string, string> = {};
  for (const { name, value } of spec.configEntries) {
    if (state.effective[name] === value) continue;
    // acks=all producers are refused outright while fewer replicas than this exist.
    if (name === 'min.insync.replicas' && Number(value) > state.replicationFactor) {
      problems.push(
        `${spec.topic}: min.insync.replicas ${value} left at ${state.effective[name] ?? 'default'}: ` +
          `above the topic's replication factor ${state.replicationFactor}, it would refuse every acks=all write`,
      );
      continue;
    }
    changes[name] = value;
  }
  const plan: TopicPlan = { problems };
  if (state.partitions < spec.numPartitions) plan.partitions = spec.numPartitions;
  if (Object.keys(changes).length > 0) plan.overrides = { ...state.overrides, ...changes };
  return plan;
}
