import { describe, expect, it } from 'vitest';
import { applyEnv } from './start-topology.ts';

describe('applyEnv', () => {
  it('sets what the topology sets and removes what it unsets, so a shell’s SASL cannot reach PLAINTEXT brokers', () => {
    const base = {
      KAFKA_BROKERS: '127.0.0.1:9092',
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'frs',
      PATH: '/usr/bin',
    };
    const out = applyEnv(base, {
      KAFKA_BROKERS: '127.0.0.1:19191,127.0.0.1:19192,127.0.0.1:19193',
      KAFKA_SASL_MECHANISM: undefined,
      KAFKA_SASL_USERNAME: undefined,
      KAFKA_SSL: undefined,
    });
    expect(out).toEqual({
      KAFKA_BROKERS: '127.0.0.1:19191,127.0.0.1:19192,127.0.0.1:19193',
      PATH: '/usr/bin',
    });
    expect(Object.keys(out)).not.toContain('KAFKA_SASL_MECHANISM');
  });
});
