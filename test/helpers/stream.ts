import { scoreCall } from './fixtures.ts';

export interface StreamResult {
  status: number;
  scoreId?: string;
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
  const results: StreamResult[] = [];
  const inflight = new Set<Promise<void>>();
  let n = 0;
  const one = async () => {
    const t0 = performance.now();
    const i = n++;
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
  };
  const timer = setInterval(() => {
    const p = one().finally(() => inflight.delete(p));
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
