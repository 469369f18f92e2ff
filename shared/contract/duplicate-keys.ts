/**
 * Duplicate member names in JSON text. JSON.parse keeps the last of two equal names and says
 * nothing, so `{"outcome":"confirmed_fraud","outcome":"not_fraud"}` would be taken as `not_fraud`
 * while a proxy, a log reader or the caller's own tooling may have read the first: the service
 * would act on a value the caller did not unambiguously send. RFC 8259 §4 leaves such objects'
 * meaning to the implementation; I-JSON (RFC 7493 §2.3) forbids them, and so does the contract.
 *
 * A scanner of our own rather than a library: the check needs the raw text (a reviver sees only
 * the surviving value), and the npm parsers that report duplicates are full parsers that would
 * parse every body a second time, slower than JSON.parse and with a maintenance record of their
 * own. This is a single pass over text JSON.parse has already accepted, so it tracks structure
 * only (objects, arrays, strings) and need not validate anything.
 */

/** One step of a path: a member name, or an array index. */
export type PathSegment = string | number;

interface Frame {
  /** Member names seen so far; absent for an array. */
  names?: Set<string>;
  /** The member being read (its name) or the array element (its index). */
  at: PathSegment;
  /** An object's next string is a member name (after `{` or `,`), not a value. */
  expectName: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** The index of the quote closing the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i;
    // An escape is a backslash and at least one more character (`\"`, `\\`, `\u0062`): skipping
    // the one after it is enough never to take an escaped quote for the end.
    i += c === BACKSLASH ? 2 : 1;
  }
}

/**
 * The paths of every member whose name appeared earlier in the same object, compared after
 * unescaping (`"a\u0062"` and `"ab"` are the same name), in the order they occur. `text` must be
 * JSON that JSON.parse accepted; on anything else the answer is meaningless. Linear in the text.
 */
export function duplicateKeyPaths(text: string): PathSegment[][] {
  const found: PathSegment[][] = [];
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === OPEN_OBJECT) stack.push({ names: new Set(), at: '', expectName: true });
    else if (c === OPEN_ARRAY) stack.push({ at: 0, expectName: false });
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) stack.pop();
    else if (c === COMMA) {
      const top = stack.at(-1)!;
      if (top.names) top.expectName = true;
      else top.at = (top.at as number) + 1;
    } else if (c === QUOTE) {
      const end = stringEnd(text, i);
      const top = stack.at(-1);
      if (top?.names && top.expectName) {
        const raw = text.slice(i + 1, end);
        // Only a name with an escape needs decoding; JSON.parse of the quoted text is JSON's own
        // unescaping, so the comparison is exactly the parser's idea of "the same name".
        const name = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (top.names.has(name)) found.push([...stack.slice(0, -1).map((f) => f.at), name]);
        top.names.add(name);
        top.at = name;
        top.expectName = false;
      }
      i = end;
    }
  }
  return found;
}
