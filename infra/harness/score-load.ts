/**
 * Open-loop scoring load over several API nodes, sent as a production caller sends it (the ideas
 * of loadtest/fault-bench.ts, for test/cluster/faults.ts):
 *
 * - every logical request carries an Idempotency-Key of its own;
 * - keep-alive sockets that the client closes before the server's keep-alive timeout (the node
 *   announces 65 s), so no request is written onto a socket the server is closing;
 * - a request whose connection breaks (its node died) is sent again with the same key to another
 *   node in rotation; a 409 `E_IDEMPOTENCY_IN_PROGRESS` (the dead node had claimed the key) and a
 *   5xx are sent again after their Retry-After, for at most `retryForMs`;
 * - nodes leave rotation when the caller says so (a load balancer's health check) and come back.
 *
 * Every attempt's status is kept, so a 5xx is seen even when a later attempt got its 200.
 * Subjects are synthetic numbers of the UK mobile test range; nothing here is logged.
 */
import { Agent, request } from 'node:http';

export interface LogicalRequest {
  /** Phase it was first sent in. */
  phase: string;
  i: number;
  /** Final status: 200, 429, ...; 0 while unanswered or when every attempt broke. */
  status: number;
  /** Statuses of every attempt in order (0: the connection broke). */
  attempts: number[];
  /** First send to final answer. */
  ms: number;
  /** performance.now() of the final answer. */
  answeredAt?: number;
  scoreId?: string;
  /** Answered by the node's local controls (Redis unreachable): `Idempotency-Status: unavailable`. */
  local?: boolean;
  done: boolean;
}

export interface ScoreLoadOptions {
  ports: number[];
  apiKey: string;
  rps: number;
  /** How long a request cut off by a crash keeps being sent again (default 60 s). */
  retryForMs?: number;
  /** Distinguishes the Idempotency-Keys of one run from another's. */
  runId: string;
}

interface Answer {
  status: number;
  data: string;
  retryAfter?: number;
  local?: boolean;
}

export class ScoreLoad {
  readonly requests: LogicalRequest[] = [];
  /** Nodes (indexes into `ports`) a load balancer would send to. */
  readonly inRotation: Set<number>;
  phase = 'warm-up';
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: 60_000 });
  private ticker: NodeJS.Timeout | undefined;
  private sent = 0;
  private startedAt = 0;

  private readonly opts: ScoreLoadOptions;

  constructor(opts: ScoreLoadOptions) {
    this.opts = opts;
    this.inRotation = new Set(opts.ports.map((_, i) => i));
  }

  start(): void {
    this.startedAt = performance.now();
    // Open loop: each tick sends every request due since the start, so a late tick (this process
    // starved of CPU) sends the ones that fell due meanwhile instead of skipping them.
    this.ticker = setInterval(() => {
      const due = Math.floor(((performance.now() - this.startedAt) * this.opts.rps) / 1000) - this.sent;
      for (let k = 0; k < due; k++) this.one();
      this.sent += due;
    }, 10);
  }

  stop(): void {
    clearInterval(this.ticker);
  }

  /** Requests not yet finally answered (some are waiting to be sent again). */
  pending(): number {
    return this.requests.filter((r) => !r.done).length;
  }

  close(): void {
    this.agent.destroy();
  }

  private one(): void {
    const i = this.requests.length;
    const r: LogicalRequest = { phase: this.phase, i, status: 0, attempts: [], ms: 0, done: false };
    this.requests.push(r);
    const body = JSON.stringify({
      subject: { phone_number: `+4479111${String(i % 100_000).padStart(5, '0')}`, ip_address: '81.2.69.142' },
      client_reference: `faults-${i}`,
    });
    const rotation = [...this.inRotation];
    const node = rotation.length ? rotation[i % rotation.length]! : 0;
    this.attempt(r, node, body, `${this.opts.runId}-${i}`, performance.now());
  }

  private attempt(r: LogicalRequest, node: number, body: string, key: string, t0: number): void {
    this.post(node, body, key, (a) => {
      r.attempts.push(a.status);
      const retryable = a.status === 0 || a.status === 409 || a.status >= 500;
      if (retryable && performance.now() - t0 < (this.opts.retryForMs ?? 60_000)) {
        // Another node in rotation when there is one (a broken connection: this one may be gone).
        const others = [...this.inRotation].filter((x) => x !== node);
        const next = a.status === 0 && others.length ? others[r.attempts.length % others.length]! : node;
        const wait = a.status === 0 ? 50 : 1000 * (a.retryAfter ?? 1);
        setTimeout(() => this.attempt(r, this.inRotation.has(next) ? next : node, body, key, t0), wait);
        return;
      }
      r.status = a.status;
      r.answeredAt = performance.now();
      r.ms = r.answeredAt - t0;
      r.done = true;
      if (a.status === 200) {
        const parsed = JSON.parse(a.data) as { score_id: string };
        r.scoreId = parsed.score_id;
        if (a.local) r.local = true;
      }
    });
  }

  private post(node: number, body: string, key: string, answer: (a: Answer) => void): void {
    // A response cut off mid-body reports an error after its headers: answer once.
    let answered = false;
    const done = (a: Answer) => {
      if (answered) return;
      answered = true;
      answer(a);
    };
    const req = request(
      {
        host: '127.0.0.1',
        port: this.opts.ports[node],
        path: '/v1/score',
        method: 'POST',
        agent: this.agent,
        headers: {
          authorization: `Bearer ${this.opts.apiKey}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'idempotency-key': key,
        },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (data += d));
        res.on('end', () => {
          const ra = Number(res.headers['retry-after']);
          done({
            status: res.statusCode ?? 0,
            data,
            ...(Number.isFinite(ra) && ra > 0 ? { retryAfter: ra } : {}),
            ...(res.headers['idempotency-status'] === 'unavailable' ? { local: true } : {}),
          });
        });
        res.on('error', () => done({ status: 0, data: '' }));
      },
    );
    req.on('error', () => done({ status: 0, data: '' }));
    req.end(body);
  }
}

/** The `p` quantile (0..1) of `xs`, NaN when empty. */
export function quantile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))]! : NaN;
}
