import { z } from 'zod';
import { SCORE_ID_PATTERN } from '../ids.ts';

export const TIERS = ['verify', 'assess', 'bureau'] as const;
export const BANDS = ['minimal', 'low', 'medium', 'high', 'critical'] as const;
export const ACTIONS = ['allow', 'watch', 'investigate', 'step_up_auth', 'challenge', 'block'] as const;
export const VERDICTS = ['clean', 'neutral', 'elevated', 'adverse', 'no_match', 'unavailable'] as const;
export const COVERAGES = ['strong', 'partial', 'thin'] as const;

export type Tier = (typeof TIERS)[number];
export type Band = (typeof BANDS)[number];
export type Action = (typeof ACTIONS)[number];
export type Verdict = (typeof VERDICTS)[number];
export type Coverage = (typeof COVERAGES)[number];

export const Component = z
  .object({
    component: z.string(),
    verdict: z.enum(VERDICTS),
    contribution: z.int(),
    detail: z.string().optional(),
  })
  .meta({ id: 'Component' });

export const PhoneResolution = z.object({
  e164: z.string().optional(),
  valid: z.boolean().optional(),
  country_code: z.string().optional(),
  ndc: z.string().optional(),
  operator: z.string().optional(),
  line_type: z.string().optional(),
  allocated: z.boolean().optional(),
});

export const IpResolution = z.object({
  asn: z.string().optional(),
  as_name: z.string().optional(),
  as_type: z.string().optional(),
  country_code: z.string().optional(),
  continent: z.string().optional(),
  hosting: z.boolean().optional(),
  vpn: z.boolean().optional(),
  proxy: z.boolean().optional(),
  tor: z.boolean().optional(),
  bogon: z.boolean().optional(),
});

export const SubjectResolution = z
  .object({ phone_number: PhoneResolution.optional(), ip_address: IpResolution.optional() })
  .meta({ id: 'SubjectResolution' });

export const ScoreResponse = z
  .object({
    score_id: z.string().regex(SCORE_ID_PATTERN),
    tier: z.enum(TIERS),
    score_version: z.string(),
    score: z.int().min(0).max(100),
    score_type: z.literal('ranking'),
    score_basis: z.string().optional(),
    band: z.enum(BANDS),
    recommended_action: z.enum(ACTIONS),
    coverage: z.enum(COVERAGES).optional(),
    subject: SubjectResolution.optional(),
    components: z.array(Component).optional(),
    primary_risk_factor: z.object({ code: z.string(), narrative: z.string().optional() }).optional(),
    benign_exclusions: z.array(z.string()).optional(),
    context_applied: z
      .object({
        context_id: z.string().optional(),
        effect: z.enum(['band_elevated', 'band_reduced', 'none']),
        reason: z.string().optional(),
      })
      .optional(),
    shadow: z.object({ score_version: z.string(), score: z.int(), band: z.enum(BANDS) }).optional(),
    suppressed: z.array(z.object({ component: z.string(), available_in: z.enum(['assess', 'bureau']) })),
    client_reference: z.string().optional(),
    cluster_id: z.string().optional(),
    disclosure: z.string(),
    degraded_sources: z.array(z.string()),
    latency_ms: z.int().min(0).optional(),
  })
  .meta({ id: 'ScoreResponse' });

export type ScoreResponse = z.infer<typeof ScoreResponse>;
export type ComponentResult = z.infer<typeof Component>;
export type SubjectResolutionT = z.infer<typeof SubjectResolution>;

export const ExplainResponse = z
  .object({
    score_id: z.string().regex(SCORE_ID_PATTERN),
    scored_at: z.string(),
    retained_until: z.string(),
    score_version: z.string(),
    request: z.record(z.string(), z.unknown()),
    response: ScoreResponse,
    evidence: z.object({
      components: z.array(Component),
      subject: SubjectResolution.optional(),
      primary_risk_factor: z.object({ code: z.string(), narrative: z.string().optional() }).optional(),
      benign_exclusions: z.array(z.string()).optional(),
    }),
  })
  .meta({ id: 'ExplainResponse' });

export type ExplainResponse = z.infer<typeof ExplainResponse>;
