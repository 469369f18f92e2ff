import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { RedisClient } from '../../shared/clients/redis.ts';
import { z } from 'zod';
import { sessionFlashKey } from '../../shared/portal/keyspace.ts';
import { sha256Hex } from '../../shared/sha256.ts';

/**
 * What a form's POST leaves for the page its redirect lands on (POST-redirect-GET): a reload or
 * "back" then repeats no action, and the message is shown once.
 */
export const FlashMessage = z.object({
  notice: z.string().optional(),
  error: z.string().optional(),
  /** The form field the error is about (the error summary links to it) and what was typed. */
  field: z.object({ name: z.string(), value: z.string() }).optional(),
  /** A new API key in clear: shown once on the page after the redirect, then gone. */
  created: z.object({ key_id: z.string(), api_key: z.string(), label: z.string() }).optional(),
  /** A setup link issued for a colleague: shown once, like a key. */
  setupLink: z.object({ email: z.string(), url: z.string() }).optional(),
});
export type FlashMessage = z.infer<typeof FlashMessage>;

/** Long enough for a redirect to land, short enough that an unread key does not linger. */
const FLASH_TTL_S = 60;

/** The sealing key comes from the session id, which Redis never holds (only its digest). */
const sealKey = (sid: string) => Buffer.from(hkdfSync('sha256', sid, '', 'frs-portal-flash', 32));

/**
 * One-time messages in Redis next to their session, encrypted (AES-256-GCM) under a key derived
 * from the session id: a new API key passes through Redis for a moment, and a copy of Redis
 * must not reveal it any more than it reveals a session. Read with GETDEL: shown once.
 */
export class FlashStore {
  private readonly redis: RedisClient;

  constructor(redis: RedisClient) {
    this.redis = redis;
  }

  async put(sid: string, message: FlashMessage): Promise<void> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', sealKey(sid), iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(message), 'utf8'), cipher.final()]);
    const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    await this.redis.set(sessionFlashKey(sha256Hex(sid)), sealed, 'EX', FLASH_TTL_S);
  }

  /** The message left for this session, removed as it is read; null when there is none. */
  async take(sid: string): Promise<FlashMessage | null> {
    const sealed = await this.redis.getdel(sessionFlashKey(sha256Hex(sid)));
    if (!sealed) return null;
    const raw = Buffer.from(sealed, 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', sealKey(sid), raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      const parsed = FlashMessage.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : null;
    } catch {
      return null; // sealed for another session id, or altered: nothing to show
    }
  }
}
