import { createHash, randomBytes } from 'node:crypto';

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

/** Only this digest of a key is ever stored. */
export function keyDigest(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

export function newId(prefix: 'org' | 'key'): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}
