import { createHash, timingSafeEqual } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { RequestHandler } from 'express';
import { ApiError } from './contract/errors.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Who may read /metrics on the API port: with METRICS_TOKEN set, a request bearing that token
 * (`Authorization: Bearer <token>`, as Prometheus' `authorization.credentials` sends it); without
 * it, only a client on the loopback interface (the local stack's Prometheus). Anyone else gets the
 * same 404 as an unknown route: the internals of a node (capability state, breaker, buffer depth)
 * are not published to callers.
 */
export function metricsAccess(token: string | undefined): RequestHandler {
  const expected = token ? digest(token) : undefined;
  return (req, _res, next) => {
    let allowed: boolean;
    if (expected) {
      const m = /^Bearer (\S+)$/i.exec(req.get('authorization') ?? '');
      allowed = m !== null && timingSafeEqual(digest(m[1]!), expected);
    } else {
      allowed = isLoopbackAddress(req.socket.remoteAddress);
    }
    if (allowed) return next();
    next(new ApiError(404, { code: 'E_NOT_FOUND', message: `no route for ${req.method} ${req.path}` }));
  };
}

function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  try {
    const parsed = ipaddr.process(address);
    return parsed.range() === 'loopback';
  } catch {
    return false;
  }
}
