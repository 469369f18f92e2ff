import { waitFor } from '../infra/harness/wait.ts';

/** Waits until `url` answers 2xx (a readiness endpoint); throws after `timeoutMs`. */
export async function waitReady(url: string, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    `${url} ready`,
    () =>
      fetch(url).then(
        (r) => r.ok,
        () => false,
      ),
    timeoutMs,
    200,
  );
}
