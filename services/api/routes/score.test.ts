import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import type { Org } from '../../../shared/orgs/store.ts';
import type { Authenticator } from '../auth.ts';
import type { AdmissionControl } from '../controls/controls.ts';
import type { CallerBudget } from '../http/caller-budget.ts';
import type { Scorer } from '../scorer.ts';
import { mountRoutes } from '../http/route.ts';
import { scoreRoute } from './score.ts';

const org: Org = {
  org_id: 'org_route_test',
  name: 'route test',
  tier: 'bureau',
  rate_rps: 100,
  credits: 100,
  overdraft: 0,
  entitlements: [],
  contexts: {},
  created_at: new Date(0).toISOString(),
};

describe('POST /v1/score and the idempotent answer', () => {
  it('stores the answer for replays only once its audit record is durable', async () => {
    const events: string[] = [];
    let makeDurable!: () => void;
    const durable = new Promise<void>((resolve) => (makeDurable = resolve));
    const passThrough: RequestHandler = (_req, _res, next) => next();
    const app = express().use(
      mountRoutes([scoreRoute], {
        auth: {
          middleware: (): RequestHandler => (_req, res, next) => {
            res.locals.principal = { org, keyId: 'k' };
            next();
          },
        } as unknown as Authenticator,
        budget: { organisation: passThrough } as unknown as CallerBudget,
        scorer: {
          versionState: () => ({ status: new Map() }),
          reputation: () => undefined,
          score: () => ({
            body: '{"score_id":"scr_1"}',
            durable: durable.then(() => void events.push('durable')),
          }),
        } as unknown as Scorer,
        controls: {
          admit: async () => ({
            kind: 'admitted',
            headers: {},
            commit: async () => void events.push('commit'),
            release: async () => undefined,
          }),
        } as AdmissionControl,
      }),
    );
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const answer = fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/score`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'once' },
        body: JSON.stringify({ subject: { ip_address: '81.2.69.142' } }),
      });
      // The record is not durable yet: a crash now must leave nothing a retry could replay.
      await new Promise((r) => setTimeout(r, 100));
      expect(events).toEqual([]);
      makeDurable();
      const res = await answer;
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ score_id: 'scr_1' });
      expect(events).toEqual(['durable', 'commit']);
    } finally {
      server.close();
    }
  });
});
