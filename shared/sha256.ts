import { createHash } from 'node:crypto';

/** Hex SHA-256 of a string: key digests, fingerprints, content hashes and log tags all use it. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
