import type { RedisClient } from '../../shared/clients/redis.ts';
import type { Config } from '../../shared/config.ts';
import type { OrgStore } from '../../shared/orgs/store.ts';

/** What one side of an A/B runs with besides the code: its environment, and the key it scores with. */
export interface AbSide {
  env?: Record<string, string>;
  /** Scores with this key (an organisation of its own) instead of the bench's. */
  apiKey?: string;
}

/** A setup module's answer (its default export takes AbSetupContext). */
export interface AbSetup {
  before?: AbSide;
  after?: AbSide;
  /** Called once both nodes stopped. */
  teardown?: () => Promise<void>;
}

export interface AbSetupContext {
  cfg: Config;
  redis: RedisClient;
  store: OrgStore;
}
