import { z } from 'zod';
import { SCORE_ID_PATTERN } from '../ids.ts';
import { COMPONENT_KEYS, REASON_CODES } from '../scoring/reason-codes.ts';
import { BENIGN_EXCLUSIONS } from '../vocabulary/benign-exclusions.ts';
import type { ComponentResult as EngineComponent, ResolvedSubject } from '../scoring/result-types.ts';
import { ACTIONS, BANDS, CONTEXT_EFFECTS, COVERAGES, TIERS, VERDICTS } from '../vocabulary/score-terms.ts';
import { callerIdIntegrity } from '../capabilities/caller-id-integrity/index.ts';
import { PHONE_LOOKUP_PROVIDERS } from '../capabilities/phone-live-lookup/result.ts';

const listOf = (registry: Record<string, string>, name: string) =>
  `One of the ${name} registry (\`x-${name.replace(/ /g, '-')}\` at the document root): ${Object.keys(
    registry,
  )
    .map((k) => `\`${k}\``)
    .join(', ')}. New values may be added; treat unknown ones as opaque.`;

export const Component = z
  .object({
    component: z.string().meta({ description: listOf(COMPONENT_KEYS, 'component keys') }),
    verdict: z.enum(VERDICTS),
    contribution: z.int().meta({ description: 'Raw-risk points this component contributed.' }),
    detail: z
      .string()
      .optional()
      .meta({ description: listOf(REASON_CODES, 'reason codes') }),
  })
  .meta({
    id: 'Component',
    examples: [{ component: callerIdIntegrity.key, verdict: 'clean', contribution: 0, detail: 'CLI_VALID' }],
  });

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
  as_name: z
    .string()
    .optional()
    .meta({
      description:
        "The origin AS's registered name, from the routing table the node holds: with the shipped table, " +
        'mostly IP to ASN Lite by DB-IP (https://db-ip.com, CC BY 4.0: "IP Geolocation by DB-IP"), merged ' +
        'by ip-location-db with Route Views and the RIRs; with a table refreshed from IPtoASN, its ' +
        'public-domain names.',
    }),
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
  .meta({ id: 'SubjectResolution', description: 'Network assets only; never subscriber identity.' });

const PrimaryRiskFactor = z.object({
  code: z.string().meta({ description: listOf(REASON_CODES, 'reason codes') }),
  narrative: z.string().optional(),
});

export const ScoreResponse = z
  .object({
    score_id: z
      .string()
      .regex(SCORE_ID_PATTERN)
      .meta({ description: '`sc_` + 32 lowercase hex (a UUIDv7). The prefix is fixed by contract.' }),
    tier: z.enum(TIERS),
    score_version: z.string(),
    score: z.int().min(0).max(100).meta({
      description:
        'Percentile rank of the raw risk against the reference population of `score_version`. Never a probability.',
    }),
    score_type: z.literal('ranking'),
    score_basis: z.string().optional(),
    band: z.enum(BANDS),
    recommended_action: z.enum(ACTIONS),
    coverage: z.enum(COVERAGES).optional().meta({
      description: 'Evidence density only; never modifies the score. Thin means unwatched, not clean.',
    }),
    subject: SubjectResolution.optional(),
    components: z.array(Component).optional(),
    primary_risk_factor: PrimaryRiskFactor.optional(),
    benign_exclusions: z
      .array(z.string())
      .optional()
      .meta({ description: listOf(BENIGN_EXCLUSIONS, 'benign exclusions') }),
    context_applied: z
      .object({
        context_id: z.string().optional(),
        effect: z.enum(CONTEXT_EFFECTS),
        reason: z.string().optional(),
      })
      .optional(),
    shadow: z
      .object({ score_version: z.string(), score: z.int().min(0).max(100), band: z.enum(BANDS) })
      .optional()
      .meta({ description: 'Present only when `options.shadow_version` was requested (bureau).' }),
    suppressed: z
      .array(z.object({ component: z.string(), available_in: z.enum(['assess', 'bureau']) }))
      .meta({ description: "Every component key and response field the caller's tier does not include." }),
    client_reference: z.string().optional(),
    cluster_id: z
      .string()
      .optional()
      .meta({ description: 'Bureau only. Stable identifier of the infrastructure the subject sits on.' }),
    disclosure: z.string(),
    degraded_sources: z.array(z.string()).meta({ description: listOf(COMPONENT_KEYS, 'component keys') }),
    latency_ms: z.int().min(0).optional(),
  })
  .meta({ id: 'ScoreResponse' });

export type ScoreResponse = z.infer<typeof ScoreResponse>;
export type ComponentResult = z.infer<typeof Component>;
export type SubjectResolutionT = z.infer<typeof SubjectResolution>;

// The engine declares these shapes below the contract (scoring/result-types.ts); the compiler
// fails here when a field is added to or dropped from either side only.
// Types are compared both ways, and field names too (an optional field on one side only would
// still be assignable).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Alike<A, B> = Same<A, B> extends true ? Same<keyof A, keyof B> : false;
type Part<T, K extends keyof T> = NonNullable<T[K]>;
const _sameComponent: Alike<ComponentResult, EngineComponent> = true;
const _sameResolution: Alike<SubjectResolutionT, ResolvedSubject> = true;
const _samePhone: Alike<
  Part<SubjectResolutionT, 'phone_number'>,
  Part<ResolvedSubject, 'phone_number'>
> = true;
const _sameIp: Alike<Part<SubjectResolutionT, 'ip_address'>, Part<ResolvedSubject, 'ip_address'>> = true;

/** How many reputation reports counted for a score, and where they came from; never who made them. */
export const ReputationReports = z
  .object({
    reports: z.int().min(0).meta({
      description: 'Reports that counted (number and address together); the score counts at most 3.',
    }),
    feed_reports: z.int().min(0).meta({ description: 'Of them, from the consortium feed.' }),
    outcome_reports: z
      .int()
      .min(0)
      .meta({
        description:
          'Of them, organisations whose latest outcome for the subject is confirmed_fraud, chargeback or ' +
          'spam_or_abuse, received in the last 180 days (one each, however often they reported it and ' +
          'whether about the number, the address or both). Another organisation counts only if it had ' +
          'scored the subject in the 90 days before its report. Which organisations is never shown.',
      }),
    own_report: z
      .boolean()
      .optional()
      .meta({
        description:
          "Whether your organisation's own report is one of them. A report about a subject you had not " +
          'scored in the 90 days before weighs on your own scores only.',
      }),
  })
  .meta({ id: 'ReputationReports' });

export const ExplainResponse = z
  .object({
    score_id: z.string().regex(SCORE_ID_PATTERN),
    scored_at: z.string(),
    retained_until: z.string(),
    score_version: z.string(),
    request: z.record(z.string(), z.unknown()).meta({
      description: 'The request as sent: subject, context, options, client_reference; never the key.',
    }),
    response: ScoreResponse,
    evidence: z
      .object({
        components: z.array(Component),
        subject: SubjectResolution.optional(),
        primary_risk_factor: PrimaryRiskFactor.optional(),
        benign_exclusions: z.array(z.string()).optional(),
        reputation: ReputationReports.optional().meta({
          description: 'Tiers with the reputation ledger, when it answered: the reports that counted.',
        }),
        services: z
          .array(z.object({ component: z.string(), name: z.string() }))
          .optional()
          .meta({
            description:
              'The services the data name for the network, by the component that read them: the VPN ' +
              'provider of a listed VPN range, the cloud or data-centre operator of a hosting range.',
          }),
        corrections: z
          .array(
            z.object({
              component: z.string(),
              flag: z.enum(['hosting', 'vpn', 'proxy', 'tor']),
              value: z.boolean(),
            }),
          )
          .optional()
          .meta({
            description:
              "Flags this deployment's operators corrected for the address, by the component that reads " +
              'them, with the value after the correction; they apply after every list. A flag corrected ' +
              'to false gives the component the detail IP_OPERATOR_CORRECTED.',
          }),
      })
      .meta({ description: 'The full evidence the tier permits, also when `explain: false` was asked.' }),
  })
  .meta({ id: 'ExplainResponse' });

export type ExplainResponse = z.infer<typeof ExplainResponse>;
export type ReputationReportsT = z.infer<typeof ReputationReports>;

export const CAPABILITY_STATUSES = ['ok', 'degraded', 'unavailable'] as const;

export const CapabilityHealth = z
  .object({
    status: z.enum(CAPABILITY_STATUSES).meta({
      description:
        '`ok`: answers at full fidelity. `degraded`: answers on reduced evidence (a stale snapshot, a missing ' +
        'optional source, a half-open breaker) and is named in `degraded_sources`. `unavailable`: its component ' +
        'has verdict `unavailable` and contributes nothing.',
    }),
    kind: z.enum(['snapshot', 'live']).meta({
      description:
        '`snapshot`: refreshed in memory on every node. `live`: looked up per request behind a breaker.',
    }),
    version: z
      .string()
      .optional()
      .meta({ description: 'Version of the snapshot (or ledger) this node serves.' }),
    refreshed_at: z
      .string()
      .optional()
      .meta({ description: 'When the source was last fetched and validated.' }),
    age_s: z.int().min(0).optional().meta({ description: 'Seconds since `refreshed_at`.' }),
    freshness_s: z.number().meta({ description: 'Older than this, the capability is `degraded`.' }),
    entries: z.int().min(0).optional(),
    data_as_of: z
      .string()
      .optional()
      .meta({
        description:
          "When the data itself was taken (RFC 3339): the feed's `# as-of:` header or the data package's date, " +
          "the oldest of its feeds'; not when it was fetched (`refreshed_at`). Absent with no snapshot.",
      }),
    records: z.int().min(0).optional().meta({ description: 'Records in the data this node serves.' }),
    max_data_age_s: z.number().meta({
      description: 'Maximum age of the data (now minus `data_as_of`) before it is `stale`.',
    }),
    stale: z
      .boolean()
      .optional()
      .meta({
        description:
          '`true` when the data is older than `max_data_age_s`: the capability is then `degraded`, and a rule ' +
          'that reads absence from its data as evidence (unallocated address space as a bogon) stops doing so. ' +
          'Present whenever `data_as_of` is.',
      }),
    breaker: z
      .enum(['closed', 'open', 'half_open'])
      .optional()
      .meta({ description: 'Live capabilities only.' }),
    last_error: z
      .string()
      .optional()
      .meta({
        description:
          'Why the capability is not served as published: the last refresh failed (the current snapshot stays ' +
          'in place; cleared by a success), this node could not load the current version, or no snapshot has ' +
          'been published yet (the refresher builds them; API nodes never do).',
      }),
    last_error_at: z.string().optional(),
    consecutive_failures: z.int().min(0).optional(),
    feeds_without_publisher: z
      .array(z.string())
      .optional()
      .meta({
        description:
          'Its feeds that name no publisher to fetch from: their data changes only with a release of the ' +
          'service, or when an operator points the feed at a newer file. Absent when every feed has one.',
      }),
  })
  .meta({ id: 'CapabilityHealth' });

/**
 * How many nodes of each engine the API node is configured with: counts only, never an address
 * (the health answer is public).
 */
export const DeploymentTopology = z
  .object({
    redis: z.object({
      mode: z.enum(['single', 'sentinel', 'cluster']),
      nodes: z.int().min(1).meta({
        description:
          'single: 1; sentinel: the Sentinels configured; cluster: the primaries the client knows (the seed nodes until it has read the slot map)',
      }),
    }),
    kafka: z.object({
      brokers: z.int().min(1).meta({ description: 'Bootstrap brokers configured' }),
      replication_factor: z.int().min(1),
      min_insync_replicas: z.int().min(1),
    }),
    clickhouse: z.object({
      cluster: z
        .string()
        .optional()
        .meta({ description: 'The ClickHouse cluster name; absent on one server' }),
      nodes: z.int().min(1).meta({ description: 'Servers the node writes and reads through' }),
    }),
    api: z.object({
      nodes: z.int().min(1).meta({ description: 'API nodes sharing the rate and credit controls' }),
    }),
  })
  .meta({ id: 'DeploymentTopology' });
export type DeploymentTopology = z.infer<typeof DeploymentTopology>;

/** The live phone lookup on this node: asked per request, so not a snapshot capability above. */
export const PhoneLookupHealth = z
  .object({
    configured: z.boolean().meta({
      description:
        'A provider and its credentials are configured (`PHONE_LOOKUP_PROVIDER`). Without one no lookup is ' +
        'ever made, whatever the organisations opted into, and `provider` and `breaker` are absent.',
    }),
    provider: z.enum(PHONE_LOOKUP_PROVIDERS).optional(),
    breaker: z
      .enum(['closed', 'open', 'half_open'])
      .optional()
      .meta({
        description:
          'The breaker in front of the provider. `open`: the provider failed; no lookup is made and the scores of ' +
          'organisations that opted in name `phone_live_lookup` in `degraded_sources` until a trial lookup ' +
          'succeeds. `half_open`: one trial lookup is under way. Either makes `status` `degraded`.',
      }),
  })
  .meta({ id: 'PhoneLookupHealth' });
export type PhoneLookupHealth = z.infer<typeof PhoneLookupHealth>;

export const HealthResponse = z
  .object({
    status: z.enum(['ok', 'degraded']).meta({
      description: '`degraded` when a capability is not `ok` or the phone lookup breaker is not `closed`.',
    }),
    score_versions: z.array(
      z.object({
        id: z.string(),
        status: z.enum(['live', 'retired', 'candidate']),
        default: z.boolean(),
        /** Scored silently beside the default on every request (audit only). */
        challenger: z.boolean(),
        hash: z.string().meta({ description: 'sha256 of points, band floors, gates and calibration' }),
        band_floors: z.object({ low: z.int(), medium: z.int(), high: z.int(), critical: z.int() }),
        posture_shift: z.int().min(0).meta({
          description: 'Points recall_weighted lowers and precision_weighted raises every band floor.',
        }),
        band_rates: z.record(z.string(), z.number()).meta({
          description: "Measured share of each band on the version's reference population, balanced posture",
        }),
      }),
    ),
    capabilities: z.record(z.string(), CapabilityHealth).meta({
      description: `Keyed by component key. ${listOf(COMPONENT_KEYS, 'component keys')}`,
    }),
    phone_lookup: PhoneLookupHealth,
    topology: DeploymentTopology,
  })
  .meta({ id: 'HealthResponse' });

export type HealthResponse = z.infer<typeof HealthResponse>;

export const ProbeResponse = z
  .object({ status: z.enum(['ok', 'ready', 'loading']) })
  .meta({ id: 'ProbeResponse' });
