/**
 * `npm run backtest`: what a candidate score version would have done to retained traffic and to
 * the outcomes callers reported, against the baseline (by default the live default version).
 *
 *   npm run backtest -- --candidate 2026.12.1 [--baseline 2026.12.2] [--from 2026-10-01]
 *                       [--to 2026-11-01] [--org ORG_ID] [--out DIR] [--png]
 *
 * --from and --to are UTC days, --to exclusive (default: the 30 days up to and including today).
 * Writes DIR/report.md with SVG charts (PNG too with --png; default DIR backtests/<run id>) and the
 * same figures as rows of ClickHouse `backtests` under the run id. Prints the summary as JSON on
 * stdout and a progress line on stderr. Exit 2 on bad input, before anything is read or written.
 */
import { parseArgs } from 'node:util';
import { createClickHouse } from '../../shared/clients/clickhouse.ts';
import { createRedis, durableRedis } from '../../shared/clients/redis.ts';
import { loadConfig, type Config } from '../../shared/config.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { runBacktest, type Progress } from '../../shared/backtest/run.ts';
import { writeReport } from '../../shared/backtest/report.ts';
import { ORG_ID, windowDays } from '../../shared/backtest/signatures.ts';
import { newRunId, saveRun } from '../../shared/backtest/store.ts';
import { effectiveState, readVersionState } from '../../shared/scoring/version-state.ts';
import { findVersion } from '../../shared/scoring/versions.ts';

class UsageError extends Error {}

const USAGE =
  'usage: npm run backtest -- --candidate VERSION [--baseline VERSION] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--org ORG_ID] [--out DIR] [--png]';
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The command line, checked before anything is read or written. */
function parseInput() {
  const { values } = parseArgs({
    options: {
      candidate: { type: 'string' },
      baseline: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      org: { type: 'string' },
      out: { type: 'string' },
      png: { type: 'boolean', default: false },
    },
  });
  if (!values.candidate) throw new UsageError('missing --candidate');
  const candidate = findVersion(values.candidate);
  if (!candidate) throw new UsageError(`unknown score version ${values.candidate}`);
  const to = values.to ?? day(Date.now() + 86_400_000);
  const from = values.from ?? day(Date.parse(`${to}T00:00:00Z`) - 30 * 86_400_000);
  try {
    if (windowDays({ from, to }).length === 0) throw new UsageError('--from must be before --to');
  } catch (err) {
    throw new UsageError(`--from/--to: ${errorMessage(err)}`);
  }
  if (values.org !== undefined && !ORG_ID.test(values.org))
    throw new UsageError('--org is not an organisation id');
  return { values, candidate, from, to };
}

/** The baseline named, else the default in force: admin state in Redis over the as-released versions. */
async function baselineOf(cfg: Config, named: string | undefined) {
  let baselineId = named;
  if (baselineId === undefined) {
    const redis = createRedis(durableRedis(cfg), { connectionName: 'frs-backtest' });
    try {
      baselineId = effectiveState(await readVersionState(redis, cfg.SCORE_VERSION_KEY)).default.id;
    } finally {
      redis.disconnect();
    }
  }
  const baseline = findVersion(baselineId);
  if (!baseline) throw new UsageError(`unknown score version ${baselineId}`);
  return baseline;
}

/** One progress line on stderr, rewritten in place on a terminal. */
function progressLine(p: Progress): void {
  const progress = process.stderr.isTTY ? '\r' : '\n';
  process.stderr.write(
    `${progress}[backtest] ${p.day} ${p.done}/${p.days} days, ${p.scores.toLocaleString('en')} scores, ` +
      `${Math.round(p.scores / Math.max(p.elapsedS, 1e-3)).toLocaleString('en')} scores/s, ` +
      `rss ${Math.round(process.memoryUsage.rss() / 2 ** 20)} MiB`,
  );
}

async function main(): Promise<void> {
  const { values, candidate, from, to } = parseInput();
  const cfg = loadConfig();
  const baseline = await baselineOf(cfg, values.baseline);
  const runId = newRunId();
  const ch = createClickHouse(cfg.CLICKHOUSE_URL, { requestTimeoutMs: 600_000 });
  try {
    const f = await runBacktest({
      ch,
      database: cfg.CLICKHOUSE_DATABASE,
      candidate,
      baseline,
      window: { from, to, ...(values.org ? { orgId: values.org } : {}) },
      progress: progressLine,
    });
    process.stderr.write('\n');
    const meta = {
      run_id: runId,
      ran_at: new Date(),
      candidate: candidate.id,
      baseline: baseline.id,
      from,
      to,
      org_id: values.org ?? '',
    };
    const rows = await saveRun(ch, cfg.CLICKHOUSE_DATABASE, meta, f);
    const report = await writeReport(values.out ?? `backtests/${runId}`, meta, f, values.png);
    process.stdout.write(
      `${JSON.stringify({
        run_id: runId,
        candidate: candidate.id,
        baseline: baseline.id,
        window: { from, to, org_id: meta.org_id },
        scores: f.scores,
        reproduced: f.reproduced,
        caps_pass: f.candidate.caps_pass,
        caps: f.candidate.caps,
        psi: f.candidate.psi,
        clickhouse_rows: rows,
        report: report.files[0],
        files: report.files,
      })}\n`,
    );
  } finally {
    await ch.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`backtest: ${errorMessage(err)}\n${err instanceof UsageError ? `${USAGE}\n` : ''}`);
  process.exitCode = 2;
});
