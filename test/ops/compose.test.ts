/**
 * What an operator must be able to trust in docker-compose.yml and the Dockerfile, checked
 * structurally (no Docker engine or compose CLI here; docs/deployment.md says how the file was
 * validated with compose-go): every service restarts and has a health check, no secret is
 * written in the file, images are pinned, the Node image is the Node of package.json, Redis has
 * the 2024-2025 Lua fixes, Kafka listens only with SASL over TLS, and each service's environment
 * is one its config accepts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FEEDS } from '../../shared/capabilities/registry.ts';
import { kafkaSecurity } from '../../shared/clients/kafka.ts';
import { loadConfig } from '../../shared/config.ts';

interface Service {
  image?: string;
  build?: unknown;
  restart?: string;
  profiles?: string[];
  healthcheck?: { test?: unknown; disable?: boolean };
  environment?: Record<string, string | number>;
  volumes?: (string | { source: string; target: string; bind?: { create_host_path?: boolean } })[];
  depends_on?: Record<string, { condition: string }>;
}

const raw = readFileSync('docker-compose.yml', 'utf8');
const compose = parse(raw, { merge: true }) as { services: Record<string, Service> };
const services = Object.entries(compose.services);
const INTERPOLATION = /\$\{([A-Z0-9_]+)(?::?[?-][^}]*)?\}/g;

/** The environment a service gets once compose filled in `${VAR:?...}` from `values`. */
function environmentOf(svc: Service, values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(svc.environment ?? {}).map(([k, v]) => [
      k,
      String(v).replace(INTERPOLATION, (_, name: string) => values[name] ?? ''),
    ]),
  );
}

/** Host path -> container path of a service's bind mounts (short or long syntax). */
function mounts(svc: Service): Map<string, string> {
  return new Map(
    (svc.volumes ?? [])
      .map((v) => (typeof v === 'string' ? { source: v.split(':')[0]!, target: v.split(':')[1]! } : v))
      .filter((v) => v.source.startsWith('./'))
      .map((v) => [v.source, v.target]),
  );
}

/** What infra/ops/kafka/make-ca.sh writes (git-ignored, so absent from a checkout), made once here. */
const TLS_DIR = './infra/ops/kafka/tls/';
const tlsOut = mkdtempSync(join(tmpdir(), 'frs-compose-tls-'));
execFileSync('sh', ['infra/ops/kafka/make-ca.sh', tlsOut], { stdio: 'ignore' });
const madeByScript = new Set(readdirSync(tlsOut));

/** One-shot jobs: something waits for them to complete, or they never restart. */
const oneShots = new Set(
  services
    .filter(
      ([name, svc]) =>
        svc.restart === 'no' ||
        services.some(
          ([, other]) => other.depends_on?.[name]?.condition === 'service_completed_successfully',
        ),
    )
    .map(([name]) => name),
);

describe('docker-compose.yml', () => {
  afterAll(() => rmSync(tlsOut, { recursive: true, force: true }));

  it('gives every service a restart policy and a health check (one-shot jobs may disable it)', () => {
    expect(services.length).toBeGreaterThanOrEqual(12);
    for (const [name, svc] of services) {
      expect(svc.restart, `${name}.restart`).toMatch(/^(unless-stopped|always|on-failure(:\d+)?|no)$/);
      if (oneShots.has(name)) {
        expect(svc.restart, `${name} is a one-shot job`).toMatch(/^(no|on-failure(:\d+)?)$/);
        expect(svc.healthcheck, `${name}.healthcheck`).toBeDefined();
      } else {
        expect(svc.restart, `${name} is long-running`).toMatch(/^(unless-stopped|always)$/);
        expect(svc.healthcheck?.test, `${name}.healthcheck.test`).toBeDefined();
        expect(svc.healthcheck?.disable, `${name}.healthcheck.disable`).not.toBe(true);
      }
    }
  });

  it('writes no secret: every password, credential in a URL or JAAS entry is interpolated', () => {
    const problems: string[] = [];
    for (const [name, svc] of services) {
      for (const [key, value] of Object.entries(svc.environment ?? {})) {
        const v = String(value);
        if (/PASSWORD|SECRET|TOKEN/.test(key) && !/^\$\{[A-Z0-9_]+:\?[^}]*\}$/.test(v)) {
          problems.push(`${name}.${key} is not a required variable`);
        }
        for (const [, cred] of v.matchAll(/\/\/[^:/@\s]+:([^@\s]*)@/g)) {
          if (!/^\$\{[A-Z0-9_]+:\?[^}]*\}$/.test(cred!))
            problems.push(`${name}.${key} has a literal URL password`);
        }
        for (const [, cred] of v.matchAll(/(?:password|user_[\w-]+)="([^"]*)"/g)) {
          if (!/^\$\{[A-Z0-9_]+:\?[^}]*\}$/.test(cred!))
            problems.push(`${name}.${key} has a literal JAAS password`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('lists every variable it needs in .env.example, and only those', () => {
    const used = new Set([...raw.matchAll(INTERPOLATION)].map((m) => m[1]!));
    const listed = new Set(
      [...readFileSync('.env.example', 'utf8').matchAll(/^([A-Z0-9_]+)=$/gm)].map((m) => m[1]!),
    );
    expect([...used].sort()).toEqual([...listed].sort());
    expect(readFileSync('.gitignore', 'utf8')).toMatch(/^\.env$/m);
  });

  it('pins every image to an exact version, never a moving tag', () => {
    for (const [name, svc] of services) {
      if (svc.build) continue;
      expect(svc.image, name).toMatch(/^[\w./-]+:v?\d+\.\d+\.\d+[\w.-]*(@sha256:[0-9a-f]{64})?$/);
    }
  });

  it('runs a Redis with the 2024-2025 Lua fixes', () => {
    // Lua use-after-free "RediShell" (CVE-2025-49844) and its siblings CVE-2025-46817/46818/46819
    // are fixed in 7.4.6, 8.0.4 and 8.2.2; the earlier Lua CVEs (CVE-2024-31449, CVE-2024-46981)
    // in 7.4.1 and 7.4.2. So 7.4 needs >= 7.4.6, 8.0 >= 8.0.4, 8.2 >= 8.2.2, later lines are fixed.
    const fixed: Record<string, number> = { '7.4': 6, '8.0': 4, '8.2': 2 };
    for (const [name, svc] of services.filter(([, s]) => s.image?.startsWith('redis:'))) {
      const [, major, minor, patch] = /^redis:(\d+)\.(\d+)\.(\d+)/.exec(svc.image!)!.map(Number);
      const line = `${major}.${minor}`;
      const ok = line in fixed ? patch! >= fixed[line]! : major! > 8 || (major === 8 && minor! > 2);
      expect(ok, `${name}: ${svc.image}`).toBe(true);
    }
  });

  it('mounts configuration that exists, including the ops profile of Prometheus and Grafana', () => {
    for (const [name, svc] of services) {
      for (const v of svc.volumes ?? []) {
        const source = typeof v === 'string' ? v.split(':')[0]! : v.source;
        // Output folders (./loadtest/results) are created by compose; configuration must exist,
        // or be what make-ca.sh writes (the operator runs it first; its output is git-ignored).
        if (source.startsWith(TLS_DIR)) {
          expect(madeByScript.has(source.slice(TLS_DIR.length)), `${name}: ${source}`).toBe(true);
          // Missing (make-ca.sh not run yet): compose must refuse, not mount an empty directory.
          expect(typeof v !== 'string' && v.bind?.create_host_path, `${name}: ${source}`).toBe(false);
          expect(source, `${name}: the CA's private key stays on the host`).not.toMatch(/ca\.key$/);
        } else if (source.startsWith('./infra/')) expect(existsSync(source), `${name}: ${source}`).toBe(true);
      }
    }
    for (const name of ['prometheus', 'grafana']) expect(compose.services[name]?.profiles).toEqual(['ops']);
  });

  it('runs the Kafka listener with SASL over TLS only, the key store from make-ca.sh', () => {
    const env = compose.services.kafka!.environment!;
    const listeners = String(env.KAFKA_LISTENERS).split(',');
    expect(listeners).toContain('SASL_SSL://:9092');
    // The one other listener is the controller's, on the container's loopback.
    expect(listeners.filter((l) => !l.startsWith('SASL_SSL://'))).toEqual(['CONTROLLER://127.0.0.1:9093']);
    expect(env.KAFKA_ADVERTISED_LISTENERS).toBe('SASL_SSL://kafka:9092');
    expect(String(env.KAFKA_LISTENER_SECURITY_PROTOCOL_MAP).split(',').sort()).toEqual([
      'CONTROLLER:PLAINTEXT',
      'SASL_SSL:SASL_SSL',
    ]);
    expect(env.KAFKA_INTER_BROKER_LISTENER_NAME).toBe('SASL_SSL');
    expect(raw).not.toMatch(/SASL_PLAINTEXT/);
    // The image's start script reads these files from /etc/kafka/secrets: each must be mounted
    // there, from make-ca.sh's output.
    const secrets = new Map([...mounts(compose.services.kafka!)].map(([host, ctr]) => [ctr, host]));
    for (const v of [
      'KAFKA_SSL_KEYSTORE_FILENAME',
      'KAFKA_SSL_KEYSTORE_CREDENTIALS',
      'KAFKA_SSL_KEY_CREDENTIALS',
    ]) {
      const host = secrets.get(`/etc/kafka/secrets/${String(env[v])}`);
      expect(host, v).toBeDefined();
      expect(madeByScript.has(basename(host!)), v).toBe(true);
    }
    expect(secrets.get(String(env.KAFKA_SSL_TRUSTSTORE_LOCATION))).toBe(`${TLS_DIR}ca.crt`);
    expect(env.KAFKA_LISTENER_NAME_SASL__SSL_PLAIN_SASL_JAAS_CONFIG).toBeDefined();
    // The image refuses a SASL listener without KAFKA_OPTS.
    expect(env.KAFKA_OPTS).toBeDefined();
  });

  it("gives each service an environment its config accepts, with its own users' credentials", () => {
    const values = Object.fromEntries(
      // As long as a generated secret (48 hex characters), so length rules hold as in a deployment.
      [...raw.matchAll(INTERPOLATION)].map((m) => [m[1]!, `${m[1]!.toLowerCase()}x`.padEnd(48, 'x')]),
    );
    // `explain`: the user on the cache Redis; a service without one is given no credentials for it.
    const users: Record<string, { redis?: string; explain?: string; kafka?: string; clickhouse?: string }> = {
      'api-1': { redis: 'frs-api', explain: 'frs-api', kafka: 'frs-api', clickhouse: 'frs_api' },
      'api-2': { redis: 'frs-api', explain: 'frs-api', kafka: 'frs-api', clickhouse: 'frs_api' },
      'audit-sink': { redis: 'frs-sink', kafka: 'frs-sink', clickhouse: 'frs_sink' },
      refresher: { redis: 'frs-refresher', clickhouse: 'frs_refresher' },
      setup: { kafka: 'admin', clickhouse: 'frs_admin' },
      admin: { redis: 'frs-admin', kafka: 'admin', clickhouse: 'frs_admin' },
      portal: { redis: 'frs-portal', explain: 'frs-portal', clickhouse: 'frs_portal' },
    };
    for (const [name, expected] of Object.entries(users)) {
      const svc = compose.services[name]!;
      const cfg = loadConfig(environmentOf(svc, values));
      if (expected.redis) expect(new URL(cfg.REDIS_URL).username, name).toBe(expected.redis);
      expect(new URL(cfg.EXPLAIN_REDIS_URL).username, `${name} on the cache Redis`).toBe(
        expected.explain ?? '',
      );
      if (expected.clickhouse) expect(new URL(cfg.CLICKHOUSE_URL).username, name).toBe(expected.clickhouse);
      // Kafka clients verify the broker with the deployment's CA, mounted where their config says.
      if (expected.kafka) {
        expect(cfg.KAFKA_SSL, name).toBe(true);
        const ca = [...mounts(svc)].find(([, ctr]) => ctr === cfg.KAFKA_SSL_CA_FILE)?.[0];
        expect(ca, `${name}: KAFKA_SSL_CA_FILE mounted`).toBe(`${TLS_DIR}ca.crt`);
        const security = kafkaSecurity({ ...cfg, KAFKA_SSL_CA_FILE: join(tlsOut, 'ca.crt') });
        expect(security.ssl, name).toMatchObject({ ca: [readFileSync(join(tlsOut, 'ca.crt'), 'utf8')] });
      }
      const sasl = kafkaSecurity({ ...cfg, KAFKA_SSL: false, KAFKA_SSL_CA_FILE: undefined }).sasl as
        { username?: string } | undefined;
      expect(sasl?.username, name).toBe(expected.kafka);
    }
  });
});

describe('Dockerfile', () => {
  it('points the refresher at every publisher its capabilities declare', () => {
    const env = compose.services.refresher!.environment!;
    const declared = Object.values(FEEDS).filter((f) => f.publishers.length > 0);
    expect(declared.length).toBeGreaterThanOrEqual(3);
    for (const feed of declared)
      expect([feed.env, env[feed.env]]).toEqual([feed.env, feed.publishers.join(',')]);
  });

  it('runs the Node version of package.json, pinned by digest', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
      engines: { node: string };
      devDependencies: { node: string };
    };
    const from = /^FROM node:(\d+\.\d+\.\d+)-[\w-]+@sha256:[0-9a-f]{64}$/m.exec(
      readFileSync('Dockerfile', 'utf8'),
    );
    expect(from, 'FROM node:<exact version>-<variant>@sha256:<digest>').not.toBeNull();
    expect(from![1]).toBe(pkg.devDependencies.node.replace(/^[\^~]/, ''));
    expect(Number(from![1]!.split('.')[0])).toBeGreaterThanOrEqual(Number(/\d+/.exec(pkg.engines.node)![0]));
  });
});
