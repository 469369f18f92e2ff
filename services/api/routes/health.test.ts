import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../shared/config.ts';
import { HealthResponse } from '../../../shared/contract/response.ts';
import type { BreakerState } from '../../../shared/capabilities/model.ts';
import { phoneLookupHealth } from '../capabilities/health.ts';
import { mountRoutes } from '../http/route.ts';
import { deploymentTopology } from '../topology.ts';
import { healthRoute } from './health.ts';

/** GET /v1/health of a node whose capabilities are all ok, with the phone lookup `lookup`. */
async function health(lookup?: { provider: 'twilio' | 'telesign'; state: BreakerState }) {
  const app = express().use(
    mountRoutes([healthRoute], {
      ready: () => true,
      capabilities: () => ({}),
      phoneLookup: () => phoneLookupHealth(lookup),
      topology: deploymentTopology(loadConfig({})),
    }),
  );
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/health`);
    return HealthResponse.parse(await res.json());
  } finally {
    server.close();
  }
}

describe('GET /v1/health phone_lookup', () => {
  it('says no provider is configured, which degrades nothing', async () => {
    const body = await health();
    expect(body.phone_lookup).toEqual({ configured: false });
    expect(body.status).toBe('ok');
  });

  it('names the provider and its closed breaker', async () => {
    const body = await health({ provider: 'telesign', state: 'closed' });
    expect(body.phone_lookup).toEqual({ configured: true, provider: 'telesign', breaker: 'closed' });
    expect(body.status).toBe('ok');
  });

  it('shows an open or half-open breaker and the node degraded', async () => {
    for (const state of ['open', 'half_open'] as const) {
      const body = await health({ provider: 'twilio', state });
      expect(body.phone_lookup).toEqual({ configured: true, provider: 'twilio', breaker: state });
      expect(body.status).toBe('degraded');
    }
  });
});
