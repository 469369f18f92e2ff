import { z } from 'zod';

/**
 * The shape of every row the code reads from ClickHouse, checked where the JSON leaves the
 * client: a column renamed in a migration (or in a query) fails there, naming the query's shape
 * and the column, rather than surfacing later as an `undefined` far from the query.
 *
 * TABLES holds, per table, the columns the code reads by name; each query's row is picked from
 * it (or, for an aggregate under an alias, typed from the column it aggregates), and
 * test/integration/clickhouse-current.test.ts checks every table's columns against
 * `system.columns` after the migrations ran, so a table and its schema here cannot drift apart.
 */

/** UInt64 as ClickHouse's JSON writes it (quoted by default); the values read stay below 2^53. */
const uint64 = z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]).transform(Number);

export const TABLES = {
  scores: z.object({
    score_id: z.string(),
    org_id: z.string(),
    scored_at_ms: uint64,
    request_json: z.string(),
    response_json: z.string(),
    evidence_json: z.string(),
    raw_risk: z.number(),
    fired_components: z.array(z.string()),
    context_effect: z.string(),
  }),
  outcomes: z.object({ org_id: z.string(), phone_number: z.string(), ip_address: z.string() }),
  scored_subjects: z.object({ org_id: z.string(), subject: z.string(), scored_at_ms: uint64 }),
  /** Created by the migration runner itself, not by a migration. */
  schema_migrations: z.object({ version: z.number().int() }),
};

/** Tables of ClickHouse's own `system` database the code reads. */
export const SYSTEM_TABLES = {
  parts: z.object({ partition: z.string() }),
  replicas: z.object({ zookeeper_path: z.string() }),
};

const { scores, outcomes, scored_subjects, schema_migrations } = TABLES;

/** One score as explain reads it back (shared/audit/history.ts). */
export const StoredScoreRow = scores
  .pick({
    score_id: true,
    org_id: true,
    scored_at_ms: true,
    request_json: true,
    response_json: true,
    evidence_json: true,
  })
  .describe('stored score (scores)');

/** One subject-day of the scored population, for calibration (`any(raw_risk) AS raw, ...`). */
export const CalibrationRow = z
  .object({ raw: scores.shape.raw_risk, fired: scores.shape.fired_components })
  .describe('calibration subject-day (scores)');

/** `SELECT count() AS n`. */
export const CountRow = z.object({ n: uint64 }).describe('count');

/** The subjects of one outcome, for its withdrawal. */
export const OutcomeSubjectsRow = outcomes
  .pick({ org_id: true, phone_number: true, ip_address: true })
  .describe('outcome subjects (outcomes)');

/** When a subject was first scored on one day (`toString(scored_on) AS day, min(scored_at_ms) AS first`). */
export const ScoredDayRow = scored_subjects
  .pick({ org_id: true, subject: true })
  .extend({ day: z.iso.date(), first: scored_subjects.shape.scored_at_ms })
  .describe('scored subject-day (scored_subjects)');

export const AppliedMigrationRow = schema_migrations.describe('applied migration (schema_migrations)');

export const PartitionRow = SYSTEM_TABLES.parts.describe('partition (system.parts)');

/** Where a replicated table keeps its replicas' shared state (system.replicas). */
export const ReplicaPathRow = SYSTEM_TABLES.replicas.describe('replica path (system.replicas)');

/** `SELECT version() AS v`. */
export const ServerVersionRow = z.object({ v: z.string() }).describe('server version');

export class ClickHouseRowError extends Error {
  override name = 'ClickHouseRowError';
}

/**
 * The rows of a JSONEachRow result, each checked against `schema`. The error names the shape,
 * the row and the offending columns, never a value (rows hold phone numbers and addresses).
 */
export async function readRows<S extends z.ZodType>(
  rs: { json(): Promise<unknown> },
  schema: S,
): Promise<z.output<S>[]> {
  const rows = await rs.json();
  const what = schema.description ?? 'row';
  if (!Array.isArray(rows)) throw new ClickHouseRowError(`ClickHouse answered no rows for ${what}`);
  return rows.map((row: unknown, i) => {
    const parsed = schema.safeParse(row);
    if (parsed.success) return parsed.data;
    const columns = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(row)'}: ${issue.message}`,
    );
    throw new ClickHouseRowError(`ClickHouse row ${i} does not match ${what}: ${columns.join('; ')}`);
  });
}
