import { isIP } from 'node:net';
import { z } from 'zod';

/** E.164 shape: `+` then digits, no separators. A trunk zero is allowed here (it scores as unattested). */
export const PHONE_PATTERN = /^\+[1-9]\d{3,14}$/;

export const CHANNELS = ['voice_call_centre', 'web', 'mobile_app', 'ussd', 'chat', 'ivr'] as const;
export const DIRECTIONS = ['inbound', 'outbound'] as const;
export const MOMENTS = ['onboarding', 'authentication', 'payment', 'profile_change', 'support'] as const;
export const RISK_POSTURES = ['recall_weighted', 'balanced', 'precision_weighted'] as const;

const countryList = z.array(z.string().regex(/^[A-Z]{2}$/, 'expected ISO 3166-1 alpha-2 country codes'));

export const Subject = z
  .strictObject({
    phone_number: z
      .string()
      .regex(PHONE_PATTERN, 'must be E.164: + followed by country code and subscriber number, digits only')
      .meta({ example: '+447911123456' })
      .optional(),
    ip_address: z
      .string()
      .max(64)
      .refine((v) => isIP(v) !== 0, 'must be an IPv4 or IPv6 literal')
      .meta({ example: '203.0.113.7' })
      .optional(),
  })
  .refine((s) => s.phone_number !== undefined || s.ip_address !== undefined, {
    message: 'subject needs at least one of phone_number, ip_address',
  })
  .meta({ id: 'Subject' });

export const Context = z
  .strictObject({
    sector: z.string().min(1).max(64),
    geography: z.strictObject({
      operating_countries: countryList.optional(),
      expected_corridors: countryList.optional(),
      diaspora_corridors: countryList.optional(),
    }),
    collection_point: z.strictObject({
      channel: z.enum(CHANNELS).optional(),
      direction: z.enum(DIRECTIONS).optional(),
      moment: z.enum(MOMENTS).optional(),
    }),
    risk_posture: z.enum(RISK_POSTURES).optional(),
    action_policy: z.record(z.string(), z.string()).optional(),
  })
  .meta({ id: 'Context' });

export const ScoreOptions = z
  .strictObject({
    explain: z.boolean().default(true),
    max_latency_ms: z.int().min(50).max(60_000).optional(),
    shadow_version: z.string().min(1).max(32).optional(),
  })
  .meta({ id: 'ScoreOptions' });

export const ScoreRequest = z
  .strictObject({
    subject: Subject,
    context_id: z.string().min(1).max(128).optional(),
    context: Context.optional(),
    client_reference: z.string().max(256).optional(),
    options: ScoreOptions.optional(),
  })
  .meta({ id: 'ScoreRequest' });

export type ScoreRequest = z.infer<typeof ScoreRequest>;
export type Context = z.infer<typeof Context>;
export type Subject = z.infer<typeof Subject>;

export const IDEMPOTENCY_KEY_MAX = 128;
