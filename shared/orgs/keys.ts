import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../sha256.ts';

export const API_KEY_PREFIX = 'frs_live_';
export const API_KEY_PATTERN = /^frs_live_[0-9A-Za-z]{32}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A new API key: the prefix and 32 base62 characters from the CSPRNG (rejection-sampled, unbiased). */
export function generateApiKey(): string {
  let out = '';
  while (out.length < 32) {
    for (const byte of randomBytes(48)) {
      if (byte < 248 && out.length < 32) out += BASE62[byte % 62];
    }
  }
  return API_KEY_PREFIX + out;
}

/** Characters after the prefix kept in clear to tell keys apart: 4 of 32 leaves 28 (166 bits) secret. */
export const KEY_HINT_CHARS = 4;

export function keyHint(apiKey: string): string {
  return apiKey.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + KEY_HINT_CHARS);
}

/** Only this digest of a key (and its hint) is ever stored. */
export function keyDigest(apiKey: string): string {
  return sha256Hex(apiKey);
}

export function newId(prefix: 'org' | 'key'): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}
