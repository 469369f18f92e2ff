import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const ACCEPTED = /^[A-Za-z0-9._-]{1,64}$/;

/** Every response carries X-Request-Id: the caller's when it is sane, else a new one. */
export const requestId: RequestHandler = (req, res, next) => {
  const given = req.get('x-request-id');
  const id = given && ACCEPTED.test(given) ? given : randomUUID();
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
};
