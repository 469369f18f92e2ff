/**
 * Kafka as the compose deployment runs it: SASL/PLAIN over TLS (SASL_SSL) with the certificates
 * of infra/ops/kafka/make-ca.sh, the StandardAuthorizer refusing what no ACL grants, and the ACLs
 * of infra/ops/kafka/acls.sh (run here as the container runs it). A private broker from the local
 * stack's jars, with the broker settings of docker-compose.yml; the API and the sink log in as
 * their users, verifying the broker against the CA, and a score travels to ClickHouse. A client
 * without the CA, or without TLS, gets nowhere.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type KafkaConfig } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, kafkaSecurity, SCORES_TOPIC } from '../../shared/clients/kafka.ts';
import { loadConfig } from '../../shared/config.ts';
import { quote, quoteIdent } from '../../shared/clients/sql.ts';
import { ensureTopics } from '../../infra/kafka/topics.ts';
import { cfg, clickhouse, orgWithKey, scoreCall } from '../../infra/harness/fixtures.ts';
import {
  freePort,
  startApi,
  startSink,
  waitFor,
  type ApiNode,
  type Service,
} from '../../infra/harness/processes.ts';

const LIBS = process.env.FRS_KAFKA_LIBS ?? '.stack/kafka/libs';
const pw = { admin: hex(), 'frs-api': hex(), 'frs-sink': hex() };
function hex() {
  return randomBytes(12).toString('hex');
}

describe('Kafka with SASL over TLS and ACLs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'frs-sasl-'));
  const tls = join(dir, 'tls');
  const caFile = join(tls, 'ca.crt');
  let broker: ChildProcess;
  let port: number;
  let api: ApiNode | undefined;
  let sink: Service | undefined;
  const saslEnv = (user: keyof typeof pw) => ({
    KAFKA_BROKERS: `127.0.0.1:${port}`,
    KAFKA_SASL_MECHANISM: 'plain',
    KAFKA_SASL_USERNAME: user,
    KAFKA_SASL_PASSWORD: pw[user],
    KAFKA_SSL: 'true',
    KAFKA_SSL_CA_FILE: caFile,
  });
  /** A kafkajs client; `ssl` as kafkajs takes it (the CA by default, as the services have it). */
  const client = (
    user: string,
    password: string,
    ssl: KafkaConfig['ssl'] = { ca: [readFileSync(caFile, 'utf8')] },
  ) =>
    new Kafka({
      clientId: `frs-sasl-test-${user}`,
      brokers: [`127.0.0.1:${port}`],
      logLevel: logLevel.NOTHING,
      connectionTimeout: 5_000,
      retry: { retries: 0 },
      ssl,
      sasl: { mechanism: 'plain', username: user, password },
    });

  beforeAll(async () => {
    port = await freePort();
    const controller = await freePort();
    mkdirSync(join(dir, 'data'));
    // The operator's step before `docker compose up`: the CA and the broker's key store.
    execFileSync('sh', ['infra/ops/kafka/make-ca.sh', tls], { stdio: 'ignore' });
    const storePassword = readFileSync(join(tls, 'broker.keystore.password'), 'utf8').trim();
    const jaas =
      'org.apache.kafka.common.security.plain.PlainLoginModule required ' +
      `username="admin" password="${pw.admin}" ` +
      Object.entries(pw)
        .map(([u, p]) => `user_${u}="${p}"`)
        .join(' ') +
      ';';
    // The broker settings of the kafka service in docker-compose.yml, on free loopback ports (the
    // image turns its KAFKA_SSL_*_FILENAME/_CREDENTIALS into these ssl.* locations and passwords).
    writeFileSync(
      join(dir, 'server.properties'),
      [
        'process.roles=broker,controller',
        'node.id=1',
        `controller.quorum.voters=1@127.0.0.1:${controller}`,
        `listeners=SASL_SSL://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controller}`,
        `advertised.listeners=SASL_SSL://127.0.0.1:${port}`,
        'controller.listener.names=CONTROLLER',
        'listener.security.protocol.map=CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL',
        'inter.broker.listener.name=SASL_SSL',
        'ssl.keystore.type=PKCS12',
        `ssl.keystore.location=${join(tls, 'broker.keystore.p12')}`,
        `ssl.keystore.password=${storePassword}`,
        `ssl.key.password=${storePassword}`,
        'ssl.truststore.type=PEM',
        `ssl.truststore.location=${caFile}`,
        'sasl.enabled.mechanisms=PLAIN',
        'sasl.mechanism.inter.broker.protocol=PLAIN',
        `listener.name.sasl_ssl.plain.sasl.jaas.config=${jaas}`,
        'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
        'super.users=User:admin;User:ANONYMOUS',
        'allow.everyone.if.no.acl.found=false',
        `log.dirs=${join(dir, 'data')}`,
        'offsets.topic.replication.factor=1',
        'offsets.topic.num.partitions=3',
        'transaction.state.log.replication.factor=1',
        'transaction.state.log.min.isr=1',
        'group.initial.rebalance.delay.ms=0',
        'auto.create.topics.enable=false',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    const java = ['-Xms128m', '-Xmx384m', '-XX:+UseSerialGC', '-cp', `${LIBS}/*`];
    execFileSync(
      'java',
      [
        ...java,
        'kafka.tools.StorageTool',
        'format',
        '-t',
        'MkU3OEVBNTcwNTJENDM2Qk',
        '-c',
        join(dir, 'server.properties'),
      ],
      { stdio: 'ignore' },
    );
    broker = spawn('java', [...java, 'kafka.Kafka', join(dir, 'server.properties')], { stdio: 'ignore' });
    const admin = client('admin', pw.admin).admin();
    await waitFor(
      'the SASL_SSL broker',
      async () => {
        await admin.connect();
        await admin.describeCluster();
        await admin.disconnect();
        return true;
      },
      120_000,
      1_000,
    );
    // The ACLs exactly as the compose job applies them, through the broker's own CLI.
    writeFileSync(
      join(dir, 'kafka-acls'),
      `#!/bin/sh\nexec java -Xmx256m -XX:+UseSerialGC -cp '${LIBS}/*' kafka.admin.AclCommand "$@"\n`,
      {
        mode: 0o700,
      },
    );
    execFileSync('sh', ['infra/ops/kafka/acls.sh'], {
      env: {
        ...process.env,
        FRS_KAFKA_ADMIN_PASSWORD: pw.admin,
        KAFKA_ACLS: join(dir, 'kafka-acls'),
        KAFKA_BOOTSTRAP: `127.0.0.1:${port}`,
        KAFKA_SSL_CA_FILE: caFile,
      },
      encoding: 'utf8',
    });
    await ensureTopics([`127.0.0.1:${port}`], kafkaSecurity(loadConfig(saslEnv('admin'))));
  });

  afterAll(async () => {
    await api?.stop();
    await sink?.stop();
    if (broker && broker.exitCode === null) {
      // The exit, or 20 s: then it is killed.
      const exited = once(broker, 'exit', { signal: AbortSignal.timeout(20_000) });
      broker.kill('SIGTERM');
      await exited.catch(() => undefined);
      if (broker.exitCode === null) broker.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('a score travels from the API to ClickHouse with each process logged in as its own user', async () => {
    sink = startSink(saslEnv('frs-sink'));
    api = await startApi({ ...saslEnv('frs-api'), NODE_ID: `kafka-auth-${randomUUID().slice(0, 8)}` });
    const { orgId, apiKey } = await orgWithKey('verify');
    const res = await scoreCall(api.url, apiKey, { subject: { ip_address: '192.0.2.7' } });
    expect(res.status).toBe(200);
    const ch = clickhouse();
    try {
      await waitFor(
        'the score in ClickHouse',
        async () => {
          const rs = await ch.query({
            query: `SELECT count() AS n FROM ${quoteIdent(cfg.CLICKHOUSE_DATABASE)}.scores WHERE org_id = ${quote(orgId)}`,
            format: 'JSONEachRow',
          });
          return Number((await rs.json<{ n: string }>())[0]?.n) === 1;
        },
        90_000,
        500,
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}\napi: ${api!.output()}\nsink: ${sink!.output()}`, { cause: err });
      });
    } finally {
      await ch.close();
    }
    const refused = /not authorized|authorization failed|SASL authentication/i;
    expect(api.output()).not.toMatch(refused);
    expect(sink.output()).not.toMatch(refused);
  });

  it('refuses a client that does not verify the broker with the CA, or does not speak TLS', async () => {
    // The system's CAs do not know the deployment's CA: the TLS handshake fails, no SASL happens.
    const systemCas = client('admin', pw.admin, true).admin();
    await expect(systemCas.connect()).rejects.toThrow(/certificate/i);
    // Another deployment's CA is no better.
    const otherTls = join(dir, 'other-ca');
    execFileSync('sh', ['infra/ops/kafka/make-ca.sh', otherTls], { stdio: 'ignore' });
    const otherCa = client('admin', pw.admin, {
      ca: [readFileSync(join(otherTls, 'ca.crt'), 'utf8')],
    }).admin();
    await expect(otherCa.connect()).rejects.toThrow(/certificate/i);
    // SASL without TLS (what the listener accepted before): the broker never reads the password.
    const plaintext = client('admin', pw.admin, false).admin();
    await expect(plaintext.connect()).rejects.toThrow();
    // The project's client refuses the same way when its CA file is not the deployment's.
    const wrongCa = createKafka(
      [`127.0.0.1:${port}`],
      'frs-sasl-test-wrong-ca',
      kafkaSecurity(loadConfig({ ...saslEnv('frs-api'), KAFKA_SSL_CA_FILE: join(otherTls, 'ca.crt') })),
    ).admin();
    await expect(wrongCa.connect()).rejects.toThrow(/certificate/i);
  });

  it('refuses a wrong password, and the sink user cannot forge audit records', async () => {
    const wrong = client('frs-api', 'not-the-password').admin();
    await expect(wrong.connect()).rejects.toThrow(/SASL|Authentication/i);

    // The sink's user cannot forge audit records: the send fails and the topic does not grow.
    const superAdmin = client('admin', pw.admin).admin();
    await superAdmin.connect();
    const ends = async () =>
      (await superAdmin.fetchTopicOffsets(SCORES_TOPIC)).map((p) => `${p.partition}:${p.high}`).join(',');
    const before = await ends();
    const sinkProducer = client('frs-sink', pw['frs-sink']).producer();
    try {
      await sinkProducer.connect();
      await expect(
        sinkProducer.send({ topic: SCORES_TOPIC, messages: [{ key: 'forged', value: '{}' }] }),
      ).rejects.toThrow();
      expect(await ends()).toBe(before);
    } finally {
      await sinkProducer.disconnect();
      await superAdmin.disconnect();
    }
  });
});
