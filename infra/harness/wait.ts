import { setTimeout as delay } from 'node:timers/promises';

/**
 * The one place tests wait, and always for something: `waitFor` for a condition, polled until a
 * deadline (a loaded two-core machine stretches any fixed time, so no test pauses for a fixed one
 * instead). The other helpers are time on purpose, each named for what it stands for: `pace` is
 * the interval of a loop that plays a client or traffic (it waits for nothing), `holdLoadFor` a
 * phase that is deliberately "keep the load running this long", `observeFor` a window in which a
 * test watches for something that must not happen or measures a rate, `untilTime` a moment the
 * behaviour under test is defined by, and `nextWindow` the start of a fresh wall-clock window of a
 * rate limit.
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
 * A window of observation: an absence (no row while paused, no second delivery) can only be
 * watched for a while, and a rate (wake-ups a second) only measured over one. Not a wait.
 */
export const observeFor = (ms: number): Promise<void> => elapse(ms);

/** Until the wall-clock moment `atMs` (a key's overlap ending): the behaviour is defined by it. */
export const untilTime = (atMs: number): Promise<void> => elapse(Math.max(0, atMs - Date.now()));

/**
 * Until `afterMs` past the start of the next wall-clock window of `windowMs` (rate limits count in
 * windows aligned on the clock): a burst sent then is counted in one window.
 */
export const nextWindow = (windowMs: number, afterMs: number): Promise<void> =>
  elapse(windowMs - (Date.now() % windowMs) + afterMs);

/** Until just after the next whole wall-clock second: where a fresh one-second rate window starts. */
export const nextWholeSecond = (): Promise<void> => nextWindow(1000, 5);
