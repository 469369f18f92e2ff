import { z } from 'zod';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const port = z.coerce.number().int().min(1).max(65535);

const envSchema = z.object({
  PORT: port.default(8080),
  /** Interface the API binds; loopback locally, 0.0.0.0 in containers. */
  HOST: z.string().min(1).default('127.0.0.1'),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  KAFKA_BROKERS: z
    .string()
    .default('127.0.0.1:9092')
    .transform((s) => s.split(',').map((b) => b.trim()))
    .pipe(z.array(z.string().regex(/^[^\s:]+:\d{1,5}$/, 'expected host:port')).min(1)),
  CLICKHOUSE_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8123'),
  CLICKHOUSE_DATABASE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .default('frs'),
  LOG_LEVEL: z.enum(logLevels).default('info'),
  /** Names this process in audit records and logs; defaults to host:pid. */
  NODE_ID: z.string().min(1).max(64).optional(),
  /** Consumer group of the audit sink; every sink process of one deployment shares it. */
  AUDIT_SINK_GROUP: z.string().min(1).default('frs-audit-sink'),
  /** Key prefix of the refresher's BullMQ queues; separates deployments sharing one Redis. */
  BULLMQ_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('frs'),
  /** Where the audit publisher spills records while Kafka is unreachable (one subfolder per node). */
  AUDIT_JOURNAL_DIR: z.string().min(1).default('.stack/journal'),
  /** Rate limit, credits and idempotency on /v1/score. `off` exists only for the benchmark baseline. */
  CONTROLS: z.enum(['on', 'off']).default('on'),
  /** API nodes in the deployment: while Redis is down each node admits rate_rps / this. */
  CONTROLS_NODE_COUNT: z.coerce.number().int().min(1).max(1000).default(1),
});

export type Config = z.infer<typeof envSchema>;

/**
 * Parses the environment once at boot. A bad value throws an error naming the variable, so the
 * composition root can print it and exit instead of running on a half-valid config.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid environment:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
