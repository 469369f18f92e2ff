/**
 * The numbering-range risk feed: E.164 prefixes (a `+`, the calling code and the leading digits
 * of the national number) with a level, one per line: `+4470,elevated` (UK personal numbers).
 * `ordinary` clears a range the line-type rule would hold against the number. The longest
 * matching prefix wins.
 */
import { FeedError, feedLines } from './feed-error.ts';

export const NDC_LEVELS = ['elevated', 'ordinary'] as const;
export type NdcLevel = (typeof NDC_LEVELS)[number];

/** Prefix (with `+`) to level. */
export type NdcRisk = Map<string, NdcLevel>;

const PREFIX = /^\+[1-9]\d{0,14}$/;
export const MAX_PREFIX_CHARS = 16;

export function parseNdcFeed(bytes: Buffer): NdcRisk {
  const out: NdcRisk = new Map();
  for (const [line, text] of feedLines(bytes)) {
    const [prefix = '', level, ...rest] = text.split(',').map((s) => s.trim());
    if (!PREFIX.test(prefix)) throw new FeedError(`line ${line}: prefix must be + and 1 to 15 digits`);
    if (!NDC_LEVELS.includes(level as NdcLevel) || rest.length > 0) {
      throw new FeedError(`line ${line}: expected 'prefix,${NDC_LEVELS.join('|')}'`);
    }
    if (out.has(prefix)) throw new FeedError(`line ${line}: prefix ${prefix} is listed twice`);
    out.set(prefix, level as NdcLevel);
  }
  return out;
}

/** The level of the longest listed prefix of `e164`, if any. */
export function ndcLevel(risk: NdcRisk, e164: string): NdcLevel | undefined {
  for (let n = Math.min(MAX_PREFIX_CHARS, e164.length); n >= 2; n--) {
    const level = risk.get(e164.slice(0, n));
    if (level) return level;
  }
  return undefined;
}
