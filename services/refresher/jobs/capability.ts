import { refreshCapability, type RefreshDeps } from '../refresh-capability.ts';
import type { Capability } from '../../../shared/capabilities/model.ts';
import type { RefresherJob } from './job.ts';

export const capabilityJobName = (name: string) => `capability:${name}`;

/**
 * Refreshes one capability every `refreshEveryS` (the first run right away, when the scheduler is
 * created). A failed run is retried with exponential backoff; meanwhile nodes keep the current
 * snapshot, and health shows the failure.
 */
export function capabilityJob(cap: Capability, deps: RefreshDeps): RefresherJob {
  const { def } = cap;
  return {
    name: capabilityJobName(def.name),
    repeat: { every: def.refreshEveryS * 1000 },
    attempts: 3,
    backoff: { type: 'exponential', delay: 5_000 },
    run: () => refreshCapability(cap, deps),
  };
}
