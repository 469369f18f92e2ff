/**
 * One backtest: the window's retained scores, a UTC day at a time (shared/backtest/signatures.ts),
 * replayed under the candidate and the baseline (shared/scoring/replay.ts, the API's engine) and
 * tallied into the figures (figures.ts). Memory holds one day's signature groups and the tally.
 */
import type { ClickHouseClient } from '../clients/clickhouse.ts';
import type { ScoreVersion } from '../scoring/engine.ts';
import { readBandRates } from '../scoring/version-files.ts';
import { findVersion } from '../scoring/versions.ts';
import { BacktestTally, figures, type Figures } from './figures.ts';
import { readDay, windowDays, type Window } from './signatures.ts';

export interface Progress {
  day: string;
  days: number;
  done: number;
  scores: number;
  elapsedS: number;
}

export interface BacktestInput {
  ch: ClickHouseClient;
  database: string;
  candidate: ScoreVersion;
  baseline: ScoreVersion;
  window: Window;
  progress?: (p: Progress) => void;
}

export async function runBacktest(input: BacktestInput): Promise<Figures> {
  const days = windowDays(input.window);
  const tally = new BacktestTally(input.candidate, input.baseline, findVersion);
  const t0 = performance.now();
  for (const [i, day] of days.entries()) {
    for (const g of await readDay(input.ch, input.database, day, input.window.orgId)) tally.add(g);
    input.progress?.({
      day,
      days: days.length,
      done: i + 1,
      scores: tally.scores,
      elapsedS: (performance.now() - t0) / 1000,
    });
  }
  return figures(tally, readBandRates());
}
