/**
 * Reader for the `start,end,...` CSV files of the @ip-location-db packages (the `-num` variants,
 * where start and end are decimal integers and rows are sorted by start).
 *
 * It scans the bytes once instead of splitting strings: the files hold 100k–400k rows each, so
 * no per-row string garbage, and no substrings of one big file string, which V8 keeps as slices
 * that hold the whole file alive.
 */

const COMMA = 0x2c;
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const QUOTE = 0x22;
const ZERO = 0x30;

/** Rows of one CSV: the range bounds, and where each row's remaining columns sit in `bytes`. */
export interface CsvRows<Bound> {
  starts: ArrayLike<Bound>;
  ends: ArrayLike<Bound>;
  bytes: Buffer;
  /** Byte offset of the first column after `end`, per row. */
  tailStart: Uint32Array;
  /** Byte offset just past the last column (before the line break), per row. */
  tailEnd: Uint32Array;
  length: number;
}

function malformed(bytes: Buffer, at: number): Error {
  const line = bytes.subarray(0, at).toString('latin1').split('\n').length;
  return new Error(`range CSV: malformed field on line ${line}`);
}

function countRows(bytes: Buffer): number {
  let rows = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === NEWLINE) rows++;
  if (bytes.length > 0 && bytes[bytes.length - 1] !== NEWLINE) rows++;
  return rows;
}

/** Offset of the comma ending the digits that start at `from`. */
function digitsEnd(bytes: Buffer, from: number): number {
  let at = from;
  while (at < bytes.length && bytes[at] !== COMMA) {
    const digit = bytes[at]! - ZERO;
    if (digit < 0 || digit > 9) throw malformed(bytes, at);
    at++;
  }
  if (at === from || at === bytes.length) throw malformed(bytes, at);
  return at;
}

function readRows<Bound>(
  bytes: Buffer,
  starts: { [row: number]: Bound } & ArrayLike<Bound>,
  ends: { [row: number]: Bound } & ArrayLike<Bound>,
  parse: (from: number, to: number) => Bound,
): CsvRows<Bound> {
  const length = starts.length;
  const tailStart = new Uint32Array(length);
  const tailEnd = new Uint32Array(length);
  let at = 0;
  for (let row = 0; row < length; row++) {
    let to = digitsEnd(bytes, at);
    starts[row] = parse(at, to);
    at = to + 1;
    to = digitsEnd(bytes, at);
    ends[row] = parse(at, to);
    at = to + 1;
    tailStart[row] = at;
    while (at < bytes.length && bytes[at] !== NEWLINE) at++;
    tailEnd[row] = bytes[at - 1] === RETURN ? at - 1 : at;
    at++;
  }
  return { starts, ends, bytes, tailStart, tailEnd, length };
}

export function readV4Csv(bytes: Buffer): CsvRows<number> {
  const length = countRows(bytes);
  return readRows(bytes, new Uint32Array(length), new Uint32Array(length), (from, to) => {
    const value = uintField(bytes, from, to);
    if (value > 0xffffffff) throw malformed(bytes, from);
    return value;
  });
}

const MAX_128 = (1n << 128n) - 1n;

/** IPv6 bounds come as whole 128-bit BigInts; callers split them once the ranges are final. */
export function readV6Csv(bytes: Buffer): CsvRows<bigint> {
  const length = countRows(bytes);
  return readRows<bigint>(bytes, new Array<bigint>(length), new Array<bigint>(length), (from, to) => {
    const value = BigInt(bytes.toString('latin1', from, to));
    if (value > MAX_128) throw malformed(bytes, from);
    return value;
  });
}

/** A non-negative decimal integer field at `bytes[from..to)`. */
export function uintField(bytes: Buffer, from: number, to: number): number {
  if (from >= to || to - from > 15) throw malformed(bytes, from);
  let value = 0;
  for (let at = from; at < to; at++) {
    const digit = bytes[at]! - ZERO;
    if (digit < 0 || digit > 9) throw malformed(bytes, at);
    value = value * 10 + digit;
  }
  return value;
}

/** A text field at `bytes[from..to)`, with CSV quoting removed (`"Cloudflare, Inc."`). */
export function textField(bytes: Buffer, from: number, to: number): string {
  const quoted = to - from >= 2 && bytes[from] === QUOTE && bytes[to - 1] === QUOTE;
  if (!quoted) return bytes.toString('utf8', from, to);
  return bytes.toString('utf8', from + 1, to - 1).replaceAll('""', '"');
}
