import type { Response } from 'express';

/** Sets each header as given (Express's `res.set` also coerces and rewrites Content-Type). */
export function setHeaders(res: Response, headers: Record<string, string>): void {
  for (const name in headers) res.setHeader(name, headers[name]!);
}

/**
 * Sends a JSON text already serialized, as the scoring route answers. Express's `res.send` turns
 * a string of 1,000 characters or more into a Buffer before writing it (an allocation and a copy
 * per answer) and then writes head and body as two chunks; `res.end` with the string lets Node
 * write head and body in one chunk and set Content-Length itself. Nothing else of `res.send`
 * (ETag, freshness, HEAD) applies to a POST's answer.
 */
export function sendJsonText(res: Response, body: string): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(body);
}
