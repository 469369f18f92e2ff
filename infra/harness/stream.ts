import { scoreCall } from './fixtures.ts';
import { waitFor } from './wait.ts';

export interface StreamResult {
  status: number;
  scoreId?: string;
  /** The outcome id of a 202 from POST /v1/outcomes (steadyOutcomeStream). */
  outcomeId?: string;
  /** Wall-clock ms when the response was complete. */
  doneAt: number;
  latencyMs: number;
  /** The node's own `latency_ms`: what the request cost the node, without the runner's pauses. */
  serverLatencyMs?: number;
}

export interface Stream {
  /** Stops issuing requests and waits for the ones in flight. */
  stop: () => Promise<StreamResult[]>;
  results: StreamResult[];
}

/**
 * An open-loop stream of scoring requests at a steady rate, like production traffic: a slow or
 * failing response does not hold back the next request. Failed connections count as status 0.
 */
export function steadyStream(url: () => string, apiKey: string, rps: number): Stream {
  return openLoop(rps, async (i, results) => {
    const t0 = performance.now();
    try {
      const res = await scoreCall(url(), apiKey, {
        subject: {
          phone_number: `+4479111${String(i % 100000).padStart(5, '0')}`,
          ip_address: '81.2.69.142',
        },
        client_reference: `stream-${i}`,
      });
      const body = (await res.json()) as { score_id?: string; latency_ms?: number };
      results.push({
        status: res.status,
        scoreId: body.score_id,
        doneAt: Date.now(),
        latencyMs: performance.now() - t0,
        serverLatencyMs: body.latency_ms,
      });
    } catch {
      results.push({ status: 0, doneAt: Date.now(), latencyMs: performance.now() - t0 });
    }
  });
}

/** The same open loop of POST /v1/outcomes, each about its own subject. */
export function steadyOutcomeStream(url: () => string, apiKey: string, rps: number): Stream {
  return openLoop(rps, async (i, results) => {
    const t0 = performance.now();
    try {
      const res = await fetch(`${url()}/v1/outcomes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          subject: { phone_number: `+4479112${String(i % 100000).padStart(5, '0')}` },
          outcome: i % 2 ? 'suspected_fraud' : 'not_fraud',
          client_reference: `stream-${i}`,
        }),
      });
      const body = (await res.json()) as { outcome_id?: string };
      results.push({
        status: res.status,
        outcomeId: body.outcome_id,
        doneAt: Date.now(),
        latencyMs: performance.now() - t0,
      });
    } catch {
      results.push({ status: 0, doneAt: Date.now(), latencyMs: performance.now() - t0 });
    }
  });
}

function openLoop(rps: number, call: (i: number, results: StreamResult[]) => Promise<void>): Stream {
  const results: StreamResult[] = [];
  const inflight = new Set<Promise<void>>();
  let n = 0;
  const timer = setInterval(() => {
    const p = call(n++, results).finally(() => inflight.delete(p));
    inflight.add(p);
  }, 1000 / rps);
  return {
    results,
    stop: async () => {
      clearInterval(timer);
      await Promise.all(inflight);
      return results;
    },
  };
}

/**
 * Keeps `stream` running until `n` more of its requests were answered (any status): a phase of
 * load counted in requests, which a loaded machine cannot shorten the way it shortens a sleep.
 */
export async function holdLoadUntilAnswered(stream: Stream, n: number): Promise<void> {
  const target = stream.results.length + n;
  await waitFor(
    `${n} more answers from the stream`,
    async () => stream.results.length >= target,
    120_000,
    50,
  );
}
