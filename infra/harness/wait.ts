import { setTimeout as delay } from 'node:timers/promises';

/**
 * The one place tests wait, and always for something: `waitFor` for a condition, polled until a
 * deadline (a loaded two-core machine stretches any fixed time, so no test pauses for a fixed one
 * instead). Three helpers are time on purpose, each named for what it stands for: `pace` is the
 * interval of a loop that plays a client or traffic (it waits for nothing), `holdLoadFor` a phase
 * that is deliberately "keep the load running this long", and `nextWindow` the start of a fresh
 * wall-clock window of a rate limit.
 */

const elapse = (ms: number): Promise<void> => delay(ms);

/** A bare pause, for the load benches (loadtest/), which run by the clock; tests use the helpers below. */
export const sleep = elapse;

/**
 * Polls `fn` every `intervalMs` until it returns a truthy value (returned) or `timeoutMs` passed
 * (throws, naming `what` and the last error `fn` threw).
 */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      lastErr = err;
    }
    await elapse(intervalMs);
  }
  throw new Error(`timed out waiting for ${what}${lastErr ? `: ${String(lastErr)}` : ''}`);
}

/** The interval between two steps of a loop that plays a client or traffic: its rhythm, not a wait. */
export const pace = (ms: number): Promise<void> => elapse(ms);

/** Keeps whatever load the test runs going for `ms`: a phase of the scenario, not a wait for a condition. */
export const holdLoadFor = (ms: number): Promise<void> => elapse(ms);

/**
 * Until `afterMs` past the start of the next wall-clock window of `windowMs` (rate limits count in
 * windows aligned on the clock): a burst sent then is counted in one window.
 */
export const nextWindow = (windowMs: number, afterMs: number): Promise<void> =>
  elapse(windowMs - (Date.now() % windowMs) + afterMs);

/** Until just after the next whole wall-clock second: where a fresh one-second rate window starts. */
export const nextWholeSecond = (): Promise<void> => nextWindow(1000, 5);
