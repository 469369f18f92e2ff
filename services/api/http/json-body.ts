import express, { type RequestHandler } from 'express';
import { ApiError } from '../../../shared/contract/errors.ts';

export const MAX_BODY_BYTES = 64 * 1024;

const parse = express.json({ limit: MAX_BODY_BYTES, strict: false, type: () => true });

/** 415 unless the body is declared JSON, then parse it with the 64 KiB limit (400/413 on failure). */
export const jsonBody: RequestHandler = (req, res, next) => {
  if (!req.is('application/json')) {
    next(
      new ApiError(415, {
        code: 'E_UNSUPPORTED_MEDIA_TYPE',
        message: 'Content-Type must be application/json',
      }),
    );
    return;
  }
  parse(req, res, next);
};
