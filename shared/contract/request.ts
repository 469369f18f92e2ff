import { isIP } from 'node:net';
import { z } from 'zod';
import { VERSION_DEFINITIONS } from '../scoring/weights.ts';
import { CHANNELS, DIRECTIONS, MOMENTS, RISK_POSTURES } from '../vocabulary/scoring-input.ts';
import { storableText } from './storable-text.ts';

/** E.164 shape: `+` then digits, no separators. A trunk zero is allowed here (it scores as unattested). */
export const PHONE_PATTERN = /^\+[1-9]\d{3,14}$/;

// The context's enums are the engine's vocabulary (vocabulary/scoring-input.ts); published here too.
export { CHANNELS, DIRECTIONS, MOMENTS, RISK_POSTURES };

export const IDEMPOTENCY_KEY_MAX = 128;
export const CLIENT_REFERENCE_MAX = 256;
export const MIN_LATENCY_BUDGET_MS = 50;

const countryList = z
  .array(z.string().regex(/^[A-Z]{2}$/, 'expected ISO 3166-1 alpha-2 country codes'))
  .max(250);

export const Subject = z
  .strictObject({
    phone_number: z
      .string()
      .regex(PHONE_PATTERN, 'must be E.164: + followed by country code and subscriber number, digits only')
      .optional()
      .meta({
        description:
          'E.164: `+`, country code, subscriber number. A national trunk zero after the country code is ' +
          'not an error: the number resolves to no range and scores as unattested.',
        examples: ['+447911123456'],
      }),
    ip_address: z
      .string()
      .max(64)
      // A zone id (`fe80::1%eth0`) names an interface of the caller's host: it is no address the
      // reputation ledger or any range can know, and it would carry free text into storage.
      .refine((v) => isIP(v) !== 0 && !v.includes('%'), 'must be an IPv4 or IPv6 literal without a zone id')
      .optional()
      .meta({
        description: 'IPv4 or IPv6 literal. An IPv4-mapped IPv6 address is treated as its IPv4.',
        // What the refine checks, said in the document: a generator reading it makes addresses.
        anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }],
        examples: ['81.2.69.142'],
      }),
  })
  .refine(
    (s) =>
      typeof s === 'object' && s !== null && (s.phone_number !== undefined || s.ip_address !== undefined),
    {
      message: 'subject needs at least one of phone_number, ip_address',
      // Also report an empty subject when a sibling field failed, so one answer lists everything.
      when: (payload) => typeof payload.value === 'object' && payload.value !== null,
    },
  )
  .meta({
    id: 'Subject',
    description: 'What to score: a phone number, an IP address, or both. At least one is required.',
    minProperties: 1,
  });

export const Context = z
  .strictObject({
    sector: storableText({ min: 1, max: 64 }).meta({ examples: ['remittance'] }),
    geography: z
      .strictObject({
        operating_countries: countryList.optional(),
        expected_corridors: countryList.optional(),
        diaspora_corridors: countryList.optional(),
      })
      .meta({
        description:
          'ISO 3166-1 alpha-2 codes. A subject outside operating countries and corridors raises the band one ' +
          'step; a subject in a diaspora corridor lowers it one step (see `context_applied`).',
      }),
    collection_point: z.strictObject({
      channel: z.enum(CHANNELS).optional(),
      direction: z.enum(DIRECTIONS).optional(),
      moment: z
        .enum(MOMENTS)
        .optional()
        .meta({ description: '`recommended_action` follows band and moment.' }),
    }),
    risk_posture: z.enum(RISK_POSTURES).optional().meta({
      description:
        "Shifts the band thresholds by the score version's posture shift (`posture_shift` in `GET /v1/health`): recall_weighted lower, precision_weighted higher.",
    }),
    action_policy: z
      .record(storableText({ max: 64 }), storableText({ max: 256 }))
      .optional()
      .meta({
        description: "The caller's own policy; recorded with the score, never applied by the service.",
      }),
  })
  .meta({ id: 'Context', description: 'Where and why the subject is being scored.' });

export const ScoreOptions = z
  .strictObject({
    explain: z
      .boolean()
      .default(true)
      .meta({
        description:
          'false omits the evidence layer (components, primary_risk_factor, benign_exclusions, subject); ' +
          'the evidence is still retained for /v1/explain.',
      }),
    max_latency_ms: z
      .int()
      .min(MIN_LATENCY_BUDGET_MS)
      .max(60_000)
      .optional()
      .meta({
        description:
          'Budget for evidence gathering. A source that cannot answer inside it is skipped and named in ' +
          '`degraded_sources`; the answer is still 200.',
      }),
    shadow_version: storableText({ min: 1, max: 32 })
      .optional()
      .meta({
        description:
          'Bureau tier only (403 otherwise). Also scores under this live version; the result is in `shadow`. ' +
          `Retired (409): ${
            VERSION_DEFINITIONS.filter((v) => v.status === 'retired')
              .map((v) => `\`${v.id}\``)
              .join(', ') || 'none'
          }. Any other value: 422.`,
        // Documents which versions exist, so a value valid by the document is never refused as unknown.
        // Validation stays a string check: an unknown id is answered with E_UNKNOWN_SCORE_VERSION.
        enum: VERSION_DEFINITIONS.map((v) => v.id),
        examples: ['2026.08.0'],
      }),
  })
  .meta({ id: 'ScoreOptions' });

export const ScoreRequest = z
  .strictObject({
    subject: Subject,
    context_id: storableText({ min: 1, max: 128 })
      .optional()
      .meta({
        description:
          'Names a context saved for the organisation. With `context` inline too, the inline one is applied ' +
          'and `context_id` labels it. An unknown `context_id` alone is a 422.',
      }),
    context: Context.optional(),
    client_reference: storableText({ max: CLIENT_REFERENCE_MAX })
      .optional()
      .meta({ description: 'Echoed in the response.' }),
    options: ScoreOptions.optional(),
  })
  .meta({ id: 'ScoreRequest' });

export type ScoreRequest = z.infer<typeof ScoreRequest>;
export type Context = z.infer<typeof Context>;
export type Subject = z.infer<typeof Subject>;
