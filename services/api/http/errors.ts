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

interface BodyParserError {
  type?: string;
  status?: number;
}

/** Renders every error in the spec's Error shape; anything unexpected is a logged 500. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    let apiErr: ApiError;
    const bp = err as BodyParserError;
    if (err instanceof ApiError) apiErr = err;
    else if (bp.type === 'entity.parse.failed') {
      apiErr = new ApiError(400, { code: 'E_MALFORMED_JSON', message: 'request body is not valid JSON' });
    } else if (bp.type === 'entity.too.large') {
      apiErr = new ApiError(413, {
        code: 'E_PAYLOAD_TOO_LARGE',
        message: 'request body is larger than 64 KiB',
      });
    } else if (bp.type === 'encoding.unsupported' || bp.type === 'charset.unsupported') {
      apiErr = new ApiError(415, { code: 'E_UNSUPPORTED_MEDIA_TYPE', message: 'body must be UTF-8 JSON' });
    } else if (bp.status && bp.status >= 400 && bp.status < 500) {
      apiErr = new ApiError(400, { code: 'E_BAD_REQUEST', message: 'request could not be read' });
    } else {
      log.error({ err, reqId: res.getHeader('X-Request-Id'), route: req.path }, 'unhandled error');
      apiErr = new ApiError(500, { code: 'E_INTERNAL', message: 'internal error' });
    }
    res.status(apiErr.status).set(apiErr.headers).json(apiErr.body());
  };
}
