import { isIP } from 'node:net';
import { z } from 'zod';
import { VERSION_DEFINITIONS } from '../scoring/weights.ts';
import { CHANNELS, DIRECTIONS, MOMENTS, RISK_POSTURES } from '../vocabulary/scoring-input.ts';
import { COUNTRY_CODES, isCountryCode } from './countries.ts';
import { storableText } from './storable-text.ts';

/** E.164 shape: `+` then digits, no separators. A trunk zero is allowed here (it scores as unattested). */
export const PHONE_PATTERN = /^\+[1-9]\d{3,14}$/;

export const IDEMPOTENCY_KEY_MAX = 128;
/**
 * Visible ASCII only. Node reads header bytes as Latin-1, so a UTF-8 key would be kept as other
 * characters than the caller's (`é` as `Ã©`), and HTTP strips spaces and tabs at a value's ends,
 * so `k ` and `k` would be one key: with 0x21-0x7E only, the key we store is the bytes sent.
 */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]+$/;
export const CLIENT_REFERENCE_MAX = 256;
export const MIN_LATENCY_BUDGET_MS = 50;

/**
 * A code of countries.ts: an assigned ISO 3166-1 alpha-2 code, or one a subject can resolve to.
 * Only those: a code no subject resolves to (`XX`, `ZZ`) in `operating_countries` would elevate
 * the band of every subject, a mistake the caller should hear about rather than pay for in scores.
 */
const CountryCode = z
  .string()
  .refine(isCountryCode, 'must be an assigned ISO 3166-1 alpha-2 country code, in upper case')
  .meta({
    id: 'CountryCode',
    description:
      'An assigned ISO 3166-1 alpha-2 code, or one the numbering plan gives subjects: `AC` (Ascension), `TA` ' +
      '(Tristan da Cunha), `XK` (Kosovo). Other codes (`XX`, `ZZ`, `AA`, the retired `AN`) are refused.',
    // The refine above, said in the document: a value valid by the document is never refused.
    enum: [...COUNTRY_CODES],
  });

const countryList = z.array(CountryCode).max(250);

/**
 * Names that are not data in JavaScript: `__proto__` assigned to an object sets its prototype
 * (zod's record output silently dropped the entry: a 200 whose stored request lacked it), and
 * `constructor`, `prototype` shadow what code reading the map may rely on. A caller's map with one
 * is refused rather than stored without it.
 */
export const RESERVED_MAP_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype'];

/**
 * A map the caller fills (`context.action_policy`; the contract's other records are the service's
 * own answers). zod's record skips a `__proto__` key without a word, so the check runs on the
 * input, before the record sees it; the document shows the record alone (a preprocess is not drawn).
 */
const callerMap = <K extends z.ZodType<string>, V extends z.ZodType>(key: K, value: V) =>
  z.preprocess(
    (input, ctx) => {
      if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
        for (const name of RESERVED_MAP_KEYS) {
          if (!Object.hasOwn(input, name)) continue;
          ctx.addIssue({
            code: 'custom',
            message: `'${name}' is not allowed as a key (reserved: ${RESERVED_MAP_KEYS.join(', ')})`,
            path: [name],
            input,
          });
        }
      }
      return input;
    },
    z.record(key, value),
  );

/**
 * The IPv4-compatible notation `::a.b.c.d` (RFC 4291 §2.5.5.1, deprecated): a literal with a
 * dotted quad whose first 96 bits are zero, however the zeros are spelt (`::0:1.2.3.4`,
 * `0:0:0:0:0:0:1.2.3.4`). Callers mean the IPv4 address by it, but it names another address, and
 * ipaddr.js reads `::a.b.c.d` as IPv4-mapped while reading the other spellings as IPv6: the same
 * address would resolve two ways. `::ffff:a.b.c.d` (mapped) is not matched. Only for a literal
 * isIP already calls IPv6, whose hex part then holds only `0` and `:` exactly when it is zero.
 */
export const IPV4_COMPATIBLE = /^[0:]*:\d+\.\d+\.\d+\.\d+$/;

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
      .refine(
        (v) => !(isIP(v) === 6 && IPV4_COMPATIBLE.test(v)),
        'the IPv4-compatible form ::a.b.c.d is deprecated (RFC 4291 2.5.5.1): send the IPv4 address itself',
      )
      .optional()
      .meta({
        description:
          'IPv4 or IPv6 literal. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is treated as its IPv4; the ' +
          'deprecated IPv4-compatible form (`::a.b.c.d`) is refused.',
        // What the refines check, said in the document: a generator reading it makes addresses.
        anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }],
        not: { pattern: IPV4_COMPATIBLE.source },
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
    action_policy: callerMap(storableText({ max: 64 }), storableText({ max: 256 }))
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
      // Absent means true (the scorer reads it so), but no default is written into the validated
      // request: it is stored as the request as sent, and the caller did not send one.
      .optional()
      .meta({
        description:
          'false omits the evidence layer (components, primary_risk_factor, benign_exclusions, subject); ' +
          'the evidence is still retained for /v1/explain.',
        default: true,
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
