/**
 * Form bodies the portal refuses rather than reads differently from what was sent. The
 * urlencoded parser (qs) keeps a value whose percent-encoding does not decode (`a%ED%A0%80b`,
 * a lone surrogate, or `%ZZ`) as its literal text, and replaces bytes that are not UTF-8 with
 * U+FFFD: either way a label would be stored as something the user never typed. A browser never
 * sends such a body (it encodes `%` itself as `%25`), so only a hand-made request is refused.
 */

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Why a urlencoded `body` in `charset` (body-parser's, lower case) cannot be read as sent, or
 * undefined when it can. In UTF-8 (the default), the raw bytes and every percent-encoded sequence must be UTF-8 (no
 * encoded surrogate); in ISO-8859-1 every byte is a character, so only a `%` that does not
 * start two hex digits is wrong.
 */
export function formEncodingError(body: Buffer, charset: string): string | undefined {
  const latin1 = charset === 'iso-8859-1';
  let text: string;
  try {
    text = latin1 ? body.toString('latin1') : utf8.decode(body);
  } catch {
    return 'the form is not UTF-8';
  }
  if (/%(?![0-9a-f]{2})/i.test(text)) return 'the form holds a % that starts no percent-encoding';
  if (latin1) return undefined;
  try {
    // `+` is a space and `&`, `=` decode to themselves: one pass over the whole body checks
    // every name and value, as a sequence cannot span a separator that is written out.
    decodeURIComponent(text);
  } catch {
    return 'the form holds a percent-encoding that is not UTF-8';
  }
  return undefined;
}

/**
 * body-parser's `verify` hook: a refused body is a 400, answered by the portal's error page
 * (body-parser otherwise makes a verify failure a 403).
 */
export function verifyFormEncoding(_req: unknown, _res: unknown, body: Buffer, charset: string): void {
  const reason = formEncodingError(body, charset);
  if (reason) throw Object.assign(new Error(reason), { status: 400, expose: true });
}
