/**
 * The one place tests wait. Prefer `waitFor` (a condition, polled until a deadline) over a fixed
 * pause: a loaded two-core machine stretches any fixed time. `sleep` is left for pacing a loop
 * (a client's interval, a retry's back-off); `holdLoadFor` for a phase that is deliberately
 * "keep the load running this long"; `nextWholeSecond` for a fresh one-second rate window.
 */

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

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
    await sleep(intervalMs);
  }
  throw new Error(`timed out waiting for ${what}${lastErr ? `: ${String(lastErr)}` : ''}`);
}

/** Keeps whatever load the test runs going for `ms`: a phase of the scenario, not a wait for a condition. */
export const holdLoadFor = (ms: number): Promise<void> => sleep(ms);

/** Until just after the next whole wall-clock second: where a fresh one-second rate window starts. */
export const nextWholeSecond = (): Promise<void> => sleep(1000 - (Date.now() % 1000) + 5);
