import { z } from 'zod';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** 0 binds any free port (in-process test nodes, and test processes side by side). */
const port = z.coerce.number().int().min(0).max(65535);

/** A feed location: an http(s) URL or a file path; unset means the default of sources.ts. */
const feedLocation = z.string().min(1).optional();

/** `name=seconds,name=seconds`: per-capability overrides of the registry's intervals. */
const secondsByCapability = z
  .string()
  .default('')
  .transform((s, ctx) => {
    const out: Record<string, number> = {};
    for (const pair of s.split(',').filter((p) => p.trim() !== '')) {
      const [name = '', seconds = ''] = pair.split('=').map((x) => x.trim());
      const n = Number(seconds);
      if (!/^[a-z_]+$/.test(name) || !Number.isFinite(n) || n <= 0) {
        ctx.addIssue({ code: 'custom', message: `expected name=seconds, got '${pair}'` });
        return z.NEVER;
      }
      out[name] = n;
    }
    return out;
  });

/** `host:port,host:port` (an IPv6 host in brackets), as REDIS_CLUSTER_NODES and REDIS_SENTINELS give them. */
const hostPorts = z
  .string()
  .transform((s) => s.split(',').map((b) => b.trim()))
  .pipe(z.array(z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):\d{1,5}$/, 'expected host:port')).min(1))
  .transform((list) =>
    list.map((hp) => {
      const at = hp.lastIndexOf(':');
      return { host: hp.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(hp.slice(at + 1)) };
    }),
  )
  .optional();

export const envSchema = z.object({
  /** Port of the API node. */
  PORT: port.default(8080),
  /** Interface the API (and the sink's and refresher's metrics servers) bind; loopback locally, 0.0.0.0 in containers. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Port of the audit sink's /metrics, /livez and /readyz. */
  AUDIT_SINK_METRICS_PORT: port.default(9464),
  /** Port of the refresher's /metrics, /livez and /readyz. */
  REFRESHER_METRICS_PORT: port.default(9465),
  /** The durable Redis (keys, organisations, rate limits, credits, idempotency). `redis://user:password@host:6379` logs in as that ACL user; with REDIS_CLUSTER_NODES or REDIS_SENTINELS it gives only the login (user, password, `rediss:` for TLS). */
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  /**
   * Seed nodes of a Redis Cluster holding what REDIS_URL would (docs/scale-out.md); REDIS_URL then
   * gives only the ACL user, password and TLS. Unset: REDIS_URL is one server.
   */
  REDIS_CLUSTER_NODES: hostPorts,
  /**
   * Replicas of the durable Redis that must hold an admission's writes (`WAIT`) before the API
   * answers it: 1 on a Redis Cluster or Sentinel group, so a primary's failover loses no credit
   * it acknowledged; 0 (no WAIT) on one server (docs/redis-outage.md).
   */
  REDIS_WAIT_REPLICAS: z.coerce.number().int().min(0).max(5).default(0),
  /** How long that `WAIT` may block; below the controls' 250 ms command timeout. */
  REDIS_WAIT_TIMEOUT_MS: z.coerce.number().int().min(1).max(200).default(50),
  /** Sentinels of a primary/replica group holding what REDIS_URL would; REDIS_URL gives the login. */
  REDIS_SENTINELS: hostPorts,
  /** The Sentinel group's master name (with REDIS_SENTINELS). */
  REDIS_SENTINEL_NAME: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/)
    .optional(),
  /** Kafka bootstrap brokers, a comma list of `host:port`. */
  KAFKA_BROKERS: z
    .string()
    .default('127.0.0.1:9092')
    .transform((s) => s.split(',').map((b) => b.trim()))
    .pipe(z.array(z.string().regex(/^[^\s:]+:\d{1,5}$/, 'expected host:port')).min(1)),
  /** SASL of the Kafka clients (unset: no authentication, as on the local stack). */
  KAFKA_SASL_MECHANISM: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']).optional(),
  /** The process's Kafka user (with KAFKA_SASL_MECHANISM). */
  KAFKA_SASL_USERNAME: z.string().min(1).optional(),
  /** The Kafka user's password (with KAFKA_SASL_MECHANISM). */
  KAFKA_SASL_PASSWORD: z.string().min(1).optional(),
  /** TLS to the brokers; with SASL/PLAIN outside a private network it should be on. */
  KAFKA_SSL: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /**
   * PEM file of the CA the brokers' certificates are verified against (with KAFKA_SSL=true), e.g.
   * the compose deployment's own CA (infra/ops/kafka/make-ca.sh); unset: the system's CAs.
   */
  KAFKA_SSL_CA_FILE: z.string().min(1).optional(),
  /**
   * Replicas of each topic `infra/kafka/topics.ts` creates, and how many must hold a record before
   * an acks=all write (every producer here) succeeds: 1/1 on the one local broker, 3/2 on a
   * three-broker cluster, so one broker may be down without refusing writes.
   */
  KAFKA_REPLICATION_FACTOR: z.coerce.number().int().min(1).max(16).default(1),
  /** Replicas that must hold a record before an acks=all write succeeds (2 on three brokers, 1 on the local broker); at most KAFKA_REPLICATION_FACTOR. */
  KAFKA_MIN_INSYNC_REPLICAS: z.coerce.number().int().min(1).max(16).default(1),
  /**
   * `http://user:password@host:8123`: the credentials of the URL are the ClickHouse user. A comma
   * list names several nodes of a cluster: the client asks the first and fails over in order.
   */
  CLICKHOUSE_URL: z
    .string()
    .default('http://127.0.0.1:8123')
    .refine(
      (s) => s.split(',').every((u) => z.url({ protocol: /^https?$/ }).safeParse(u.trim()).success),
      'expected http(s) URLs, comma-separated',
    ),
  /**
   * Cluster of the ClickHouse servers (`remote_servers`), e.g. `frs`: migrations then run on every
   * node of CLICKHOUSE_URL, checked node by node, with Replicated tables behind Distributed ones
   * (docs/scale-out.md). Unset: one server.
   */
  CLICKHOUSE_CLUSTER: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .optional(),
  /** ClickHouse database of the score history, outcomes and views. */
  CLICKHOUSE_DATABASE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .default('frs'),
  /** pino log level. */
  LOG_LEVEL: z.enum(logLevels).default('info'),
  /** Names this process in audit records and logs; defaults to host:pid. */
  NODE_ID: z.string().min(1).max(64).optional(),
  /** Consumer group of the audit sink; every sink process of one deployment shares it. */
  AUDIT_SINK_GROUP: z.string().min(1).default('frs-audit-sink'),
  /**
   * Whether this sink group also keeps the portal's Activity lists and day counts in Redis. One
   * group of a deployment does; a second group (a replay into another database, a test's sink)
   * sets false, or every score would be counted once per group.
   */
  AUDIT_SINK_ACTIVITY: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /**
   * Whether this sink group also counts network velocity (its own consumer group,
   * `<AUDIT_SINK_GROUP>-velocity`). One group of a deployment does; counting is idempotent per
   * organisation and subject, but a second group only repeats the work.
   */
  AUDIT_SINK_VELOCITY: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /**
   * Whether this sink group also copies organisations' list changes from their outbox streams in
   * Redis to ClickHouse `list_changes` (and trims them). One group of a deployment does; a second
   * group writing another database (a replay, a test's sink) sets false, or it would take the
   * changes away from the first.
   */
  AUDIT_SINK_LIST_CHANGES: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /**
   * Organisations whose scores network velocity does not count (test or sandbox tenants), comma
   * separated: they never lift a subject for anyone. Read by the sink's velocity consumer.
   */
  VELOCITY_EXCLUDED_ORGS: z
    .string()
    .default('')
    .transform(
      (s) =>
        new Set(
          s
            .split(',')
            .map((o) => o.trim())
            .filter((o) => o !== ''),
        ),
    ),
  /**
   * Key prefix of the refresher's BullMQ queues; separates deployments sharing one Redis. On a
   * Redis Cluster it must be a hash tag (`{frs}`): BullMQ's scripts touch many keys of a queue.
   */
  BULLMQ_PREFIX: z
    .string()
    .regex(/^([A-Za-z0-9_-]+|\{[A-Za-z0-9_-]+\})$/, 'expected a name or a hash tag like {frs}')
    .default('frs'),
  /** Where the audit publisher spills records while Kafka is unreachable (one subfolder per node). */
  AUDIT_JOURNAL_DIR: z.string().min(1).default('.stack/journal'),
  /**
   * Longest an API connection may take to send a whole request (headers and body), and its
   * headers alone: a body trickled a byte at a time is cut with a 408 after this, not held open.
   */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(500).max(300_000).default(10_000),
  /** Longest a connection may take to send a request's headers; slower ones are cut with 408. */
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(500).max(300_000).default(5_000),
  /** Most idempotency entries one organisation may create per UTC day; past it: not retained. */
  IDEMPOTENCY_ENTRIES_PER_DAY: z.coerce.number().int().min(0).max(100_000_000).default(100_000),
  /** Explain copies one organisation may write per second per node (its fair share of the cache). */
  EXPLAIN_COPIES_PER_ORG_S: z.coerce.number().int().min(0).max(1_000_000).default(100),
  /** Bearer token Prometheus sends to read an API node's /metrics; unset: loopback clients only. */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** Refused requests (401, 404...) one client address may make per second per node before 429. */
  ADDRESS_ERRORS_PER_S: z.coerce.number().int().min(1).max(100_000).default(20),
  /** Explain's ClickHouse lookups in flight per node; one organisation may hold half of them. */
  EXPLAIN_LOOKUPS_MAX: z.coerce.number().int().min(1).max(1_000).default(8),
  /** Rate limit, credits and idempotency on /v1/score. `off` exists only for the benchmark baseline. */
  CONTROLS: z.enum(['on', 'off']).default('on'),
  /** Seconds between an API node's writes of its keys' last-used times (the portal's Keys page). */
  KEY_USAGE_FLUSH_S: z.coerce.number().min(0.1).max(3600).default(60),
  /** API nodes in the deployment: while Redis is down each node admits rate_rps / this. */
  CONTROLS_NODE_COUNT: z.coerce.number().int().min(1).max(1000).default(1),
  /** Prefix of the capability snapshot keys and announcement channel; separates deployments sharing one Redis. */
  CAPABILITY_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_:-]+$/)
    .default('frs:cap'),
  /** Redis hash of the run-time score-version state (default, challenger, retired) and, + `:changed`, its channel. */
  SCORE_VERSION_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_:-]+$/)
    .default('frs:versions'),
  /** The silent challenger version when the admin CLI has not set one (`version challenger`). */
  SCORE_CHALLENGER: z
    .string()
    .regex(/^\d{4}\.\d{2}\.\d+$/)
    .optional(),
  /**
   * `admin version promote` refuses a candidate whose latest backtest against the default is older
   * than this many days (docs/data.md "Backtests"), unless forced with a reason.
   */
  BACKTEST_MAX_AGE_DAYS: z.coerce.number().min(0).max(400).default(14),
  /** Seconds between an API node's polls of the current snapshot versions (catches missed announcements). */
  CAPABILITY_POLL_S: z.coerce.number().min(0.1).max(3600).default(5),
  /** Overrides of the registry's refresh intervals, `<capability>=<seconds>,...`. */
  CAPABILITY_REFRESH_S: secondsByCapability,
  /** Overrides of the registry's freshness limits, `<capability>=<seconds>,...`. */
  CAPABILITY_FRESHNESS_S: secondsByCapability,
  /**
   * Overrides of the registry's maximum data ages (how old the data itself may be):
   * `<capability>=<seconds>,...`. The local stack and the tests raise them for the dated seed samples.
   */
  CAPABILITY_MAX_DATA_AGE_S: secondsByCapability,
  /**
   * Redis holding the explain copies of fresh scores: a cache (no persistence, bounded memory,
   * volatile-ttl eviction), kept apart from the durable server of keys and credits.
   */
  EXPLAIN_REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6380'),
  /** Redis holding the reputation ledger; defaults to REDIS_URL. */
  LEDGER_REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  /**
   * Server secret of the HMAC that keys ledger subjects in Redis (shared/capabilities/subject-key.ts):
   * a Redis dump alone does not give the numbers back. Every API node, sink and refresher of a
   * deployment shares it; the default is for the local stack only. Rotation: docs/security.md.
   */
  LEDGER_SUBJECT_SECRET: z
    .string()
    .min(32, 'at least 32 characters')
    .default('local-development-only-ledger-subject-secret'),
  /** The secret before the last rotation: still read (never written) until its reports aged out. */
  LEDGER_SUBJECT_SECRET_PREVIOUS: z.string().min(32, 'at least 32 characters').optional(),
  /**
   * Ledger changes one organisation's outcomes may make per calendar month (UTC): what its
   * outcomes hold in Redis is bounded by this (docs/security.md); past it outcomes are still
   * accepted and stored in ClickHouse, and no longer change Redis.
   */
  LEDGER_WRITES_PER_ORG_MONTH: z.coerce.number().int().min(0).max(10_000_000).default(10_000),
  /** Breaker timeout of a ledger lookup, inside the request budget (capped by options.max_latency_ms). */
  LEDGER_TIMEOUT_MS: z.coerce.number().int().min(1).max(10_000).default(25),
  /** How long an open ledger breaker waits before letting a trial lookup through. */
  LEDGER_BREAKER_RESET_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  /**
   * The live phone-lookup provider the operator licenses (docs/capabilities.md "Live phone
   * lookups"): `twilio` (Lookup v2) or `telesign` (Phone ID). Unset: no lookup is ever made.
   * Lookups run only for organisations with a monthly cap (`admin org update --phone-lookup-cap`).
   * Each provider call is billed by the provider per lookup (Twilio per package asked); cached
   * fields are not asked again: line type 7 days, porting 1 day, SIM swap and forwarding 15 min.
   * Counted in /metrics as `frs_phone_lookups_total{org,provider,outcome}`.
   */
  PHONE_LOOKUP_PROVIDER: z.enum(['twilio', 'telesign']).optional(),
  /** Twilio account SID: the user of Lookup v2's HTTP Basic authentication. */
  TWILIO_ACCOUNT_SID: z.string().min(1).optional(),
  /** Twilio auth token (or API key secret), the password of that authentication. */
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  /** Where Lookup v2 is served: Twilio's host, a regional edge, or a stand-in in tests. */
  TWILIO_LOOKUP_URL: z.url({ protocol: /^https?$/ }).default('https://lookups.twilio.com'),
  /** Telesign customer id: the user of Phone ID's HTTP Basic authentication. */
  TELESIGN_CUSTOMER_ID: z.string().min(1).optional(),
  /** Telesign API key, the password of that authentication. */
  TELESIGN_API_KEY: z.string().min(1).optional(),
  /** Where Phone ID is served (rest-ww for enterprise accounts), or a stand-in in tests. */
  TELESIGN_URL: z.url({ protocol: /^https?$/ }).default('https://rest-ww.telesign.com'),
  /**
   * Hard ceiling of one phone lookup, whatever the caller's options.max_latency_ms allows: the
   * request answers from prefix evidence past it (the lookup still fills the cache for the next).
   */
  PHONE_LOOKUP_TIMEOUT_MS: z.coerce.number().int().min(10).max(5_000).default(400),
  /** How long an open phone-lookup breaker waits before letting a trial lookup through. */
  PHONE_LOOKUP_BREAKER_RESET_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** Time limit of fetching one feed file. */
  FEED_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** A feed with fewer entries than (1 - this) x the current snapshot's is refused as suspiciously shrunk. */
  FEED_MAX_SHRINK: z.coerce.number().min(0).max(1).default(0.5),
});

const withKafkaSasl = envSchema.superRefine((c, ctx) => {
  if (c.REDIS_CLUSTER_NODES && c.REDIS_SENTINELS) {
    ctx.addIssue({
      code: 'custom',
      path: ['REDIS_SENTINELS'],
      message: 'set REDIS_CLUSTER_NODES or REDIS_SENTINELS, not both',
    });
  }
  // BullMQ's scripts would fail with CROSSSLOT on the first job; refuse at boot instead.
  if (c.REDIS_CLUSTER_NODES && !c.BULLMQ_PREFIX.startsWith('{')) {
    ctx.addIssue({
      code: 'custom',
      path: ['BULLMQ_PREFIX'],
      message: 'on a Redis Cluster it must be a hash tag, e.g. {frs}',
    });
  }
  if (c.KAFKA_SASL_MECHANISM && (!c.KAFKA_SASL_USERNAME || !c.KAFKA_SASL_PASSWORD)) {
    ctx.addIssue({
      code: 'custom',
      path: ['KAFKA_SASL_MECHANISM'],
      message: 'needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD',
    });
  }
  if (c.KAFKA_MIN_INSYNC_REPLICAS > c.KAFKA_REPLICATION_FACTOR) {
    ctx.addIssue({
      code: 'custom',
      path: ['KAFKA_MIN_INSYNC_REPLICAS'],
      message: 'above KAFKA_REPLICATION_FACTOR: every acks=all write would be refused',
    });
  }
  phoneLookupCredentials(c, ctx);
  // A CA without TLS would be ignored, and the operator would believe the brokers verified.
  if (c.KAFKA_SSL_CA_FILE && !c.KAFKA_SSL) {
    ctx.addIssue({ code: 'custom', path: ['KAFKA_SSL_CA_FILE'], message: 'needs KAFKA_SSL=true' });
  }
});

export type Config = z.infer<typeof envSchema>;

/** A provider chosen without its credentials is refused at boot, not on the first lookup. */
function phoneLookupCredentials(c: Config, ctx: z.RefinementCtx): void {
  const needs = {
    twilio: ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN'],
    telesign: ['TELESIGN_CUSTOMER_ID', 'TELESIGN_API_KEY'],
  } as const;
  if (!c.PHONE_LOOKUP_PROVIDER) return;
  for (const name of needs[c.PHONE_LOOKUP_PROVIDER]) {
    if (!c[name])
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `needed by PHONE_LOOKUP_PROVIDER=${c.PHONE_LOOKUP_PROVIDER}`,
      });
  }
}

/**
 * Each feed's location (`FEED_*`, one per source a capability declares): any `FEED_*` variable the
 * schema above does not name, kept on the parsed config under its own name. Which names exist is
 * the capabilities' to say (capabilities/sources.ts reads the ones they declare); config sits below
 * them and checks only that a location set is not empty.
 */
function feedLocationSchema(env: NodeJS.ProcessEnv): z.ZodObject {
  const names = Object.keys(env).filter((k) => /^FEED_[A-Z0-9_]+$/.test(k) && !(k in envSchema.shape));
  return z.object(Object.fromEntries(names.map((name) => [name, feedLocation])));
}

/**
 * Parses the environment once at boot. A bad value throws an error naming the variable, so the
 * composition root can print it and exit instead of running on a half-valid config.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = withKafkaSasl.safeParse(env);
  const feeds = feedLocationSchema(env).safeParse(env);
  const issues = [...(parsed.error?.issues ?? []), ...(feeds.error?.issues ?? [])];
  if (!parsed.success || !feeds.success) {
    const lines = issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid environment:\n${lines.join('\n')}`);
  }
  return { ...feeds.data, ...parsed.data };
}
