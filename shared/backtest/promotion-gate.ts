/**
 * What `admin version promote` reads before it changes the default: the latest backtest of the
 * candidate against the current default (ClickHouse `backtests`). A candidate without one, with
 * one older than BACKTEST_MAX_AGE_DAYS, or with one that failed a "Score quality" cap is refused,
 * unless the operator forces it with a reason, which `version_promotions` records with every
 * promotion.
 */
import type { LatestBacktest, Promotion } from './store.ts';
import { errorMessage } from '../error-message.ts';

export class PromotionRefused extends Error {
  override name = 'PromotionRefused';
}

export interface PromotionGateDeps {
  latest: (candidate: string, baseline: string) => Promise<LatestBacktest | undefined>;
  record: (p: Promotion) => Promise<void>;
  maxAgeDays: number;
  now?: () => number;
}

export interface GateRequest {
  candidate: string;
  currentDefault: string;
  force: boolean;
  reason?: string;
  operator: string;
}

export interface GateResult {
  backtest: (LatestBacktest & { age_days: number }) | null;
  /** Why it would have been refused; empty when the backtest allows the promotion. */
  problems: string[];
  forced: boolean;
}

/** Decides; throws PromotionRefused unless the backtest allows it or it is forced with a reason. */
export async function gatePromotion(deps: PromotionGateDeps, req: GateRequest): Promise<GateResult> {
  if (req.force && !req.reason?.trim()) throw new PromotionRefused('--force needs --reason');
  if (req.candidate === req.currentDefault) return { backtest: null, problems: [], forced: false };
  const now = deps.now?.() ?? Date.now();
  const problems: string[] = [];
  let latest: LatestBacktest | undefined;
  try {
    latest = await deps.latest(req.candidate, req.currentDefault);
  } catch (err) {
    problems.push(`the backtests could not be read (${errorMessage(err)})`);
  }
  const backtest = latest
    ? { ...latest, age_days: Number(((now - Date.parse(latest.ran_at)) / 86_400_000).toFixed(2)) }
    : null;
  if (!backtest && problems.length === 0)
    problems.push(
      `no backtest of ${req.candidate} against the default ${req.currentDefault} (npm run backtest -- --candidate ${req.candidate})`,
    );
  if (backtest) {
    if (backtest.age_days > deps.maxAgeDays)
      problems.push(
        `the latest backtest ${backtest.run_id} is ${backtest.age_days} days old (at most ${deps.maxAgeDays}: BACKTEST_MAX_AGE_DAYS)`,
      );
    if (!backtest.caps_pass) {
      const failed = Object.entries(backtest.caps)
        .filter(([, c]) => !c.pass)
        .map(([name, c]) => `${name} ${(c.share * 100).toFixed(2)} %`);
      problems.push(
        `the latest backtest ${backtest.run_id} failed the score quality caps (${failed.join(', ')})`,
      );
    }
  }
  if (problems.length > 0 && !req.force) {
    const seen = backtest
      ? ` [latest backtest ${backtest.run_id} ran ${backtest.ran_at} over scores from ${backtest.window.from} to ${backtest.window.to}: ` +
        `${Object.entries(backtest.caps)
          .map(([name, c]) => `${name} ${(c.share * 100).toFixed(2)} % ${c.pass ? 'pass' : 'FAIL'}`)
          .join(', ')}]`
      : '';
    throw new PromotionRefused(
      `refused: ${problems.join('; ')}${seen}; --force --reason TEXT promotes anyway`,
    );
  }
  return { backtest, problems, forced: problems.length > 0 };
}

/** The record of a promotion that happened. */
export function promotionRecord(req: GateRequest, gate: GateResult): Promotion {
  return {
    version: req.candidate,
    previous_default: req.currentDefault,
    backtest_run_id: gate.backtest?.run_id ?? '',
    forced: gate.forced,
    reason: req.reason ?? '',
    operator: req.operator,
  };
}
