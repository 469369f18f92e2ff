import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { kafkaSecurity } from './kafka.ts';

describe('TLS of the Kafka clients', () => {
  const dir = mkdtempSync(join(tmpdir(), 'frs-kafka-ca-'));
  const ca = join(dir, 'ca.crt');
  writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('verifies the brokers against KAFKA_SSL_CA_FILE, else the system CAs, and needs KAFKA_SSL for a CA', () => {
    expect(kafkaSecurity(loadConfig({ KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: ca })).ssl).toEqual({
      ca: [expect.stringContaining('not checked here')],
      rejectUnauthorized: true,
    });
    expect(kafkaSecurity(loadConfig({ KAFKA_SSL: 'true' })).ssl).toBe(true);
    expect(kafkaSecurity(loadConfig({})).ssl).toBeUndefined();
    // A CA the clients would ignore is refused at boot, not silently unused.
    expect(() => loadConfig({ KAFKA_SSL_CA_FILE: ca })).toThrow(/KAFKA_SSL_CA_FILE: needs KAFKA_SSL=true/);
  });
});

describe('durability of the topics', () => {
  it('defaults to one replica and refuses a min ISR above the replication factor', () => {
    expect(loadConfig({})).toMatchObject({ KAFKA_REPLICATION_FACTOR: 1, KAFKA_MIN_INSYNC_REPLICAS: 1 });
    expect(loadConfig({ KAFKA_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '2' })).toMatchObject({
      KAFKA_REPLICATION_FACTOR: 3,
      KAFKA_MIN_INSYNC_REPLICAS: 2,
    });
    expect(() => loadConfig({ KAFKA_MIN_INSYNC_REPLICAS: '2' })).toThrow(
      /KAFKA_MIN_INSYNC_REPLICAS: above KAFKA_REPLICATION_FACTOR/,
    );
  });
});
