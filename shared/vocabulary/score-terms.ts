/**
 * The words a score is told in: tiers, bands, actions, verdicts, coverage and context effects. The
 * bottom layer of shared/: every other module may use these, and this folder imports nothing of
 * the project. The contract's schemas (contract/response.ts) publish them as enums.
 */
export const TIERS = ['verify', 'assess', 'bureau'] as const;
export const BANDS = ['minimal', 'low', 'medium', 'high', 'critical'] as const;
export const ACTIONS = ['allow', 'watch', 'investigate', 'step_up_auth', 'challenge', 'block'] as const;
export const VERDICTS = ['clean', 'neutral', 'elevated', 'adverse', 'no_match', 'unavailable'] as const;
export const COVERAGES = ['strong', 'partial', 'thin'] as const;
export const CONTEXT_EFFECTS = ['band_elevated', 'band_reduced', 'none'] as const;

export type Tier = (typeof TIERS)[number];
export type Band = (typeof BANDS)[number];
export type Action = (typeof ACTIONS)[number];
export type Verdict = (typeof VERDICTS)[number];
export type Coverage = (typeof COVERAGES)[number];
export type ContextEffect = (typeof CONTEXT_EFFECTS)[number];
