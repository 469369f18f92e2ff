import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ApiError } from '../../../shared/contract/errors.ts';
import type { Logger } from '../../../shared/logger.ts';

export const notFound: RequestHandler = (req, _res, next) => {
  next(new ApiError(404, { code: 'E_NOT_FOUND', message: `no route for ${req.method} ${req.path}` }));
};

export function methodNotAllowed(allow: string[]): RequestHandler {
  return (req, _res, next) => {
    next(
      new ApiError(
        405,
        {
          code: 'E_METHOD_NOT_ALLOWED',
          message: `${req.method} is not allowed here; use ${allow.join(', ')}`,
        },
        { Allow: allow.join(', ') },
      ),
    );
  };
}

/** Renders every error in the contract's Error shape; anything unexpected is a logged 500. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    let apiErr: ApiError;
    const status = (err as { status?: unknown }).status;
    if (err instanceof ApiError) apiErr = err;
    else if (typeof status === 'number' && status >= 400 && status < 500) {
      // Express's own request errors (a malformed URI, for example).
      apiErr = new ApiError(400, { code: 'E_BAD_REQUEST', message: 'request could not be read' });
    } else {
      log.error({ err, reqId: res.getHeader('X-Request-Id'), route: req.path }, 'unhandled error');
      apiErr = new ApiError(500, { code: 'E_INTERNAL', message: 'internal error' });
    }
    res.status(apiErr.status).set(apiErr.headers).json(apiErr.body());
  };
}
