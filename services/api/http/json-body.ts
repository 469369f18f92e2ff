import type { Request, RequestHandler } from 'express';
import { ApiError } from '../../../shared/contract/errors.ts';
import { duplicateKeyErrors } from '../../../shared/contract/validation.ts';

export const MAX_BODY_BYTES = 64 * 1024;

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const CHARSET = /;\s*charset\s*=\s*"?([\w-]+)"?/i;

/**
 * Fatal: a byte sequence that is not UTF-8 is refused (400) rather than silently replaced by
 * U+FFFD, which would score and store something the caller never sent. The BOM is kept so that,
 * as before, a body starting with one is not JSON.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const unsupported = (message: string) => new ApiError(415, { code: 'E_UNSUPPORTED_MEDIA_TYPE', message });
const inUnits = (bytes: number) => (bytes >= 1 << 20 ? `${bytes / (1 << 20)} MiB` : `${bytes / 1024} KiB`);
// The connection is closed after the answer: reading the rest of a body we refuse would let a
// caller keep the node busy receiving bytes it will never use.
const tooLarge = (maxBytes: number) =>
  new ApiError(
    413,
    { code: 'E_PAYLOAD_TOO_LARGE', message: `request body is larger than ${inUnits(maxBytes)}` },
    { Connection: 'close' },
  );

/** A media type a body reader takes, and what it makes of the decoded text (or why it refuses it). */
interface BodyKind {
  type: RegExp;
  /** The refusals of another type and of another charset, in words. */
  typeMessage: string;
  charsetMessage: string;
  /** Sets `req.body` from the text, or gives the refusal. */
  read(req: Request, text: string): ApiError | undefined;
}

const JSON_KIND: BodyKind = {
  type: JSON_TYPE,
  typeMessage: 'Content-Type must be application/json',
  charsetMessage: 'body must be UTF-8 JSON',
  read(req, text) {
    try {
      req.body = JSON.parse(text);
    } catch {
      return new ApiError(400, { code: 'E_MALFORMED_JSON', message: 'request body is not valid JSON' });
    }
    // JSON.parse kept the last of two equal names. Refused here, before the fields are
    // validated: which value the caller meant is unknown, so checking either would be a guess.
    const duplicates = duplicateKeyErrors(text);
    return duplicates.length > 0 ? new ApiError(422, duplicates) : undefined;
  },
};

const CSV_KIND: BodyKind = {
  type: /^text\/csv\s*(?:;|$)/i,
  typeMessage: 'Content-Type must be text/csv',
  charsetMessage: 'body must be UTF-8 text',
  read(req, text) {
    // Spreadsheets write a BOM before UTF-8 CSV; it is no part of the header line.
    req.body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    return undefined;
  },
};

/**
 * Reads a body of `kind` into `req.body`: 415 unless declared of its type (UTF-8, no content
 * coding), 413 past `maxBytes` (from Content-Length before reading, or while reading), 400 when
 * it is not UTF-8, then the kind's own reading. Written for the score hot path instead of
 * body-parser, whose type negotiation and charset decoding cost more per request than the parse
 * itself.
 */
function bodyReader(kind: BodyKind, maxBytes: number): RequestHandler {
  return (req, _res, next) => {
    const type = req.headers['content-type'] ?? '';
    if (!kind.type.test(type)) return next(unsupported(kind.typeMessage));
    const charset = CHARSET.exec(type)?.[1]?.toLowerCase();
    if (charset && charset !== 'utf-8' && charset !== 'utf8') return next(unsupported(kind.charsetMessage));
    const coding = req.headers['content-encoding'];
    if (coding && coding.toLowerCase() !== 'identity')
      return next(unsupported('compressed bodies are not accepted'));
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBytes) return next(tooLarge(maxBytes));

    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err?: ApiError) => {
      if (done) return;
      done = true;
      req.off('data', onData).off('end', onEnd).off('error', onError);
      if (err) {
        // Past the limit the rest is not read (the connection closes after the 413); a read
        // error leaves nothing worth draining either.
        if (err.status !== 413) req.resume();
        return next(err);
      }
      let text: string;
      try {
        text = utf8.decode(Buffer.concat(chunks, size));
      } catch {
        return next(new ApiError(400, { code: 'E_BAD_REQUEST', message: 'request body is not valid UTF-8' }));
      }
      next(kind.read(req, text));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return finish(tooLarge(maxBytes));
      chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = () =>
      finish(new ApiError(400, { code: 'E_BAD_REQUEST', message: 'request body could not be read' }));
    req.on('data', onData).on('end', onEnd).on('error', onError);
  };
}

/**
 * A JSON body: as `bodyReader`, then 400 when it is not JSON and 422 `E_DUPLICATE_KEY` when an
 * object names a member twice. 64 KiB unless the route allows more.
 */
export const jsonBodyOf = (maxBytes: number): RequestHandler => bodyReader(JSON_KIND, maxBytes);
export const jsonBody = jsonBodyOf(MAX_BODY_BYTES);

/** A `text/csv` body, as UTF-8 text in `req.body`. */
export const csvBodyOf = (maxBytes: number): RequestHandler => bodyReader(CSV_KIND, maxBytes);
