import type { NextFunction, Request, Response } from 'express';

/** Why a form was not read: the status to answer with, and a sentence for the page. */
export class FormRefused extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}
const refusal = (status: number, message: string) => new FormRefused(status, message);

const utf8 = new TextDecoder('utf-8', { fatal: true });
const CRLF2 = Buffer.from('\r\n\r\n');

/** One part of a multipart/form-data body: its name, its filename if it is a file, its bytes. */
interface Part {
  name: string;
  filename?: string;
  data: Buffer;
}

/** The boundary of a multipart/form-data Content-Type, or undefined for any other type. */
function boundaryOf(type: string): string | undefined {
  if (!/^multipart\/form-data\s*;/i.test(type)) return undefined;
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(type);
  return m?.[1] ?? m?.[2];
}

/** The parts of `body` (RFC 7578), or undefined when it is not well formed. */
function partsOf(body: Buffer, boundary: string): Part[] | undefined {
  const delimiter = Buffer.from(`--${boundary}`);
  const next = Buffer.from(`\r\n--${boundary}`);
  let pos = body.indexOf(delimiter);
  if (pos < 0) return undefined;
  const parts: Part[] = [];
  for (;;) {
    pos += delimiter.length;
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return parts; // the closing delimiter
    if (body[pos] !== 0x0d || body[pos + 1] !== 0x0a) return undefined;
    const headEnd = body.indexOf(CRLF2, pos + 2);
    const end = headEnd < 0 ? -1 : body.indexOf(next, headEnd + 4);
    if (end < 0) return undefined;
    const head = body.subarray(pos + 2, headEnd).toString('latin1');
    const disposition = /^content-disposition:\s*form-data\s*(;.*)$/im.exec(head)?.[1];
    const name = disposition && /;\s*name="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined || name === '') return undefined;
    const filename = /;\s*filename="([^"]*)"/i.exec(disposition!)?.[1];
    parts.push({
      name,
      ...(filename !== undefined ? { filename } : {}),
      data: body.subarray(headEnd + 4, end),
    });
    pos = end + 2;
  }
}

/** The parts as form fields (UTF-8 text), a name sent twice as an array, as the urlencoded parser does. */
function fieldsOf(parts: Part[], names: readonly string[]): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  for (const part of parts) {
    if (!names.includes(part.name)) continue;
    let text: string;
    try {
      text = utf8.decode(part.data);
    } catch {
      throw refusal(
        400,
        `The ${part.filename !== undefined ? 'file' : 'field'} ${part.name} is not UTF-8 text.`,
      );
    }
    const had = fields[part.name];
    fields[part.name] = had === undefined ? text : [...(Array.isArray(had) ? had : [had]), text];
  }
  return fields;
}

/**
 * Reads a multipart/form-data form of at most `maxBytes` into `req.body`, keeping the fields
 * `names` only (a file field's content as text): what a CSV upload needs, without a dependency.
 * Past `maxBytes` it is refused (413) and read no further; another type is 415, a body that is not
 * well formed 400: `refuse` answers those, nothing else runs. Mounted after the session check and
 * before the CSRF check, which then reads `_csrf` from the form as from any other.
 */
export function multipartForm(
  maxBytes: number,
  names: readonly string[],
  refuse: (res: Response, err: FormRefused) => void,
) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const fail = (err: unknown) => {
      if (!(err instanceof FormRefused)) return next(err);
      // Past the limit the rest is not read; the connection closes after the answer.
      if (err.status === 413) res.set('Connection', 'close');
      else req.resume();
      refuse(res, err);
    };
    const boundary = boundaryOf(req.headers['content-type'] ?? '');
    if (!boundary) return fail(refusal(415, 'The form must be sent as multipart/form-data.'));
    const tooLarge = () => refusal(413, `The file is larger than ${maxBytes >> 20} MiB.`);
    if (Number(req.headers['content-length'] ?? 0) > maxBytes) return fail(tooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err?: FormRefused) => {
      if (done) return;
      done = true;
      req.off('data', onData).off('end', onEnd).off('error', onError);
      if (err) return fail(err);
      const parts = partsOf(Buffer.concat(chunks, size), boundary);
      if (!parts)
        return fail(refusal(400, 'The form could not be read (not well-formed multipart/form-data).'));
      try {
        req.body = fieldsOf(parts, names);
      } catch (e) {
        return fail(e);
      }
      next();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return finish(tooLarge());
      chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = () => finish(refusal(400, 'The form could not be read.'));
    req.on('data', onData).on('end', onEnd).on('error', onError);
  };
}
