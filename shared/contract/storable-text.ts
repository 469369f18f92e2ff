import { z } from 'zod';

/**
 * The one place that decides which strings the service accepts: every string a caller sends is
 * stored downstream (Kafka, ClickHouse, Redis, logs), so each must be text every one of them
 * keeps as sent. A string is storable when it is
 *
 * - well-formed Unicode: no lone or reversed surrogate (JSON's `\ud800` escape makes one;
 *   ClickHouse refuses the whole insert that holds it, and no UTF-8 store can keep it);
 * - free of control characters: C0 (U+0000-U+001F), DEL and C1 (U+007F-U+009F); free text
 *   (`prose: true`) may hold tab, line feed and carriage return;
 * - free of noncharacters (U+FDD0-U+FDEF and the last two code points of every plane), which
 *   Unicode reserves for a process's internal use and which are never text;
 * - in identifiers and references, free of the bidirectional embedding, override and isolate
 *   controls (U+202A-U+202E, U+2066-U+2069): they make an id display as something else
 *   ("Trojan source"). Free text may hold them, as right-to-left writing needs.
 *
 * Lengths count code points, as JSON Schema's `maxLength` does (zod's `max` counts the same way).
 */
export interface StorableTextOptions {
  /** Most code points. */
  max: number;
  /** Fewest code points; 0 when absent. */
  min?: number;
  /** Human free text (a note): tab, newlines and bidirectional controls are allowed. */
  prose?: boolean;
}

// Control characters are what these patterns are for.
/* eslint-disable no-control-regex */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
const CONTROL_EXCEPT_WHITESPACE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/u;
/* eslint-enable no-control-regex */
const NONCHARACTER =
  /[\ufdd0-\ufdef\ufffe\uffff\u{1fffe}\u{1ffff}\u{2fffe}\u{2ffff}\u{3fffe}\u{3ffff}\u{4fffe}\u{4ffff}\u{5fffe}\u{5ffff}\u{6fffe}\u{6ffff}\u{7fffe}\u{7ffff}\u{8fffe}\u{8ffff}\u{9fffe}\u{9ffff}\u{afffe}\u{affff}\u{bfffe}\u{bffff}\u{cfffe}\u{cffff}\u{dfffe}\u{dffff}\u{efffe}\u{effff}\u{ffffe}\u{fffff}\u{10fffe}\u{10ffff}]/u;
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/u;

const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Why `value` cannot be stored, or undefined when it can. The message names the character by its
 * code point, never echoes the string (it may be long, or hostile to a terminal).
 */
export function unstorableReason(value: string, prose = false): string | undefined {
  if (!value.isWellFormed()) return 'must be well-formed Unicode (it holds a lone surrogate)';
  const control = (prose ? CONTROL_EXCEPT_WHITESPACE : CONTROL).exec(value);
  if (control) return `must not contain control characters (${codePoint(control[0])})`;
  const non = NONCHARACTER.exec(value);
  if (non) return `must not contain Unicode noncharacters (${codePoint(non[0])})`;
  if (!prose) {
    const bidi = BIDI_CONTROL.exec(value);
    if (bidi) return `must not contain bidirectional control characters (${codePoint(bidi[0])})`;
  }
  return undefined;
}

/** True when `value` passes every rule above. */
export function isStorable(value: string, prose = false): boolean {
  return unstorableReason(value, prose) === undefined;
}

/**
 * A zod string schema for a field whose value is stored: `storableText({ max: 256 })`. Chain
 * `.regex()`, `.refine()` or `.meta()` after it as with `z.string()`; a violation is one 422 item
 * with the field's dotted path.
 */
export function storableText(opts: StorableTextOptions) {
  const prose = opts.prose ?? false;
  let s = z.string().max(opts.max);
  if (opts.min !== undefined) s = s.min(opts.min);
  return s
    .superRefine((value, ctx) => {
      const reason = unstorableReason(value, prose);
      if (reason) ctx.addIssue({ code: 'custom', message: reason, input: value, abort: true });
    })
    .meta({ pattern: prose ? PROSE_PATTERN : TEXT_PATTERN });
}

/**
 * The rules above as a JSON Schema `pattern` for the OpenAPI document, so a client or fuzzer
 * reading it makes only strings the API accepts. It covers every rule that a pattern can say
 * the same way in ECMAScript (with the `u` flag) and in other engines: controls, the BMP
 * noncharacters and, outside prose, the bidirectional controls. Lone surrogates (a surrogate
 * range is read differently by engines with and without `u`, and Schemathesis drops it) and
 * the noncharacters of the supplementary planes (U+1FFFE ...) are refused but not in it.
 */
const TEXT_PATTERN =
  '^[^\\u0000-\\u001F\\u007F-\\u009F\\uFDD0-\\uFDEF\\uFFFE\\uFFFF\\u202A-\\u202E\\u2066-\\u2069]*$';
const PROSE_PATTERN =
  '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\uFDD0-\\uFDEF\\uFFFE\\uFFFF]*$';

/**
 * `value` with every character that breaks the rules above replaced by U+FFFD: the repair the DLQ
 * replay offers for a record written before the rules existed (or by something other than the API).
 */
export function toStorable(value: string, prose = false): string {
  let out = '';
  for (const ch of value.toWellFormed()) out += isStorable(ch, prose) ? ch : '\ufffd';
  return out;
}
