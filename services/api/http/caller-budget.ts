import type { Request, RequestHandler, Response } from 'express';
import { ApiError } from '../../../shared/contract/errors.ts';
import type { Principal } from '../auth.ts';
import { SecondWindow } from '../../../shared/second-window.ts';

/**
 * Per-caller budgets for what billed scoring's rate limit does not cover: refused requests
 * (every 4xx) and explain lookups. Counted per node in whole wall-clock seconds, in memory: the
 * score path does no extra I/O for them. A deployment of N nodes (CONTROLS_NODE_COUNT) gives each
 * node 1/N of the organisation's rate, as the controls do while Redis is down.
 *
 * - Before authentication, per client address: at most `addressErrorsPerSecond` refused requests
 *   (unknown or malformed keys, unknown routes); past that, 429 without reading the key.
 * - Per organisation: at most its `rate_rps` refused requests a second (malformed bodies, 422s,
 *   403s, 409s...), then 429 until the next second; and at most `rate_rps` explain calls a second.
 */
export interface CallerBudgetOptions {
  addressErrorsPerSecond: number;
  nodeCount: number;
  /** Most callers tracked in one second; past it new callers are not counted (fail open). */
  maxTracked?: number;
  now?: () => number;
}

const limited = (limit: number, now: number, what: string) =>
  new ApiError(
    429,
    { code: 'E_RATE_LIMITED', message: `more than ${limit} ${what} per second; slow down` },
    {
      'Retry-After': String(Math.max(1, Math.ceil((1000 - (now % 1000)) / 1000))),
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': '0',
    },
  );

const addressOf = (req: Request) => `ip:${req.socket.remoteAddress ?? 'unknown'}`;
const principalOf = (res: Response) => res.locals.principal as Principal | undefined;

export class CallerBudget {
  private readonly errors: SecondWindow;
  private readonly explains: SecondWindow;
  private readonly opts: Required<CallerBudgetOptions>;

  constructor(opts: CallerBudgetOptions) {
    this.opts = { maxTracked: 100_000, now: Date.now, ...opts };
    this.errors = new SecondWindow(this.opts.maxTracked);
    this.explains = new SecondWindow(this.opts.maxTracked);
  }

  private orgLimit(principal: Principal): number {
    return Math.max(1, Math.ceil(principal.org.rate_rps / this.opts.nodeCount));
  }

  /**
   * App-wide, first: refuses an address over its pre-authentication budget, and counts every 4xx
   * when the answer is sent (against the organisation once authenticated, else the address).
   * A 429 is not counted, so a caller that waits the second out is served again.
   */
  readonly track: RequestHandler = (req, res, next) => {
    const now = this.opts.now();
    const address = addressOf(req);
    if (this.errors.count(address, now) >= this.opts.addressErrorsPerSecond)
      return next(limited(this.opts.addressErrorsPerSecond, now, 'refused requests from this address'));
    res.on('finish', () => {
      if (res.statusCode < 400 || res.statusCode >= 500 || res.statusCode === 429) return;
      const principal = principalOf(res);
      this.errors.hit(principal ? `org:${principal.org.org_id}` : address, this.opts.now());
    });
    next();
  };

  /** After authentication: an organisation over its budget of refused requests gets 429. */
  readonly organisation: RequestHandler = (_req, res, next) => {
    const principal = principalOf(res);
    if (!principal) return next();
    const now = this.opts.now();
    const limit = this.orgLimit(principal);
    if (this.errors.count(`org:${principal.org.org_id}`, now) >= limit)
      return next(limited(limit, now, 'refused requests'));
    next();
  };

  /** After authentication on explain: at most the organisation's rate of explain calls a second. */
  readonly explain: RequestHandler = (req, res, next) => {
    const principal = principalOf(res);
    if (!principal) return next();
    const now = this.opts.now();
    const limit = this.orgLimit(principal);
    if (this.explains.hit(`org:${principal.org.org_id}`, now) > limit)
      return next(limited(limit, now, 'explain calls'));
    this.organisation(req, res, next);
  };
}
