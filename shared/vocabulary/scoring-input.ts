/**
 * What a score is asked about, as the engine and the capabilities read it: the subject and the
 * parts of the caller's context that change a score. The request schema (contract/request.ts)
 * validates the full request and is checked there to fit these shapes.
 */
export const CHANNELS = ['voice_call_centre', 'web', 'mobile_app', 'ussd', 'chat', 'ivr'] as const;
export const DIRECTIONS = ['inbound', 'outbound'] as const;
export const MOMENTS = ['onboarding', 'authentication', 'payment', 'profile_change', 'support'] as const;
export const RISK_POSTURES = ['recall_weighted', 'balanced', 'precision_weighted'] as const;

export type Channel = (typeof CHANNELS)[number];
export type Direction = (typeof DIRECTIONS)[number];
export type Moment = (typeof MOMENTS)[number];
export type RiskPosture = (typeof RISK_POSTURES)[number];

/** The subject scored: a phone number (E.164), an IP address, or both. */
export interface ScoringSubject {
  phone_number?: string | undefined;
  ip_address?: string | undefined;
}

/** The context fields that move a band or an action; the rest of a context is only recorded. */
export interface ScoringContext {
  geography: {
    operating_countries?: string[] | undefined;
    expected_corridors?: string[] | undefined;
    diaspora_corridors?: string[] | undefined;
  };
  collection_point: { moment?: Moment | undefined };
  risk_posture?: RiskPosture | undefined;
}
