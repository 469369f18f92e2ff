/**
 * Which score version is the default and which one, if any, is the silent challenger: admin
 * state in Redis over the as-released versions, so a promotion or retirement reaches every node
 * without a restart. The admin CLI writes it (`npm run admin -- version ...`) and announces the
 * change; API nodes follow the announcement and poll as a fallback (services/api/version-follower.ts).
 *
 * Redis hash `<prefix>` (default `frs:versions`): `default` (a version id), `challenger` (an id, or
 * empty for "none, whatever the configuration says"), `retired` (comma list of ids retired at run
 * time). Channel `<prefix>:changed` announces each write.
 */
import type { RedisClient } from '../clients/redis.ts';
import type { ScoreVersion } from './engine.ts';
import { DEFAULT_VERSION, findVersion, SCORE_VERSIONS } from './versions.ts';

export const VERSION_STATE_KEY = 'frs:versions';

export interface StoredVersionState {
  default?: string;
  challenger?: string;
  retired?: string;
}

export type EffectiveStatus = 'live' | 'retired' | 'candidate';

/** Immutable: a node swaps the whole object when the state changes. */
export interface VersionState {
  default: ScoreVersion;
  challenger?: ScoreVersion;
  status: ReadonlyMap<string, EffectiveStatus>;
}

/**
 * The state in force from what Redis holds and the configured challenger. Unknown or retired ids
 * are ignored (the as-released default stands), and the challenger is never the default.
 */
export function effectiveState(stored: StoredVersionState, configuredChallenger?: string): VersionState {
  const retired = new Set((stored.retired ?? '').split(',').filter(Boolean));
  const status = new Map<string, EffectiveStatus>();
  for (const v of SCORE_VERSIONS) status.set(v.id, retired.has(v.id) ? 'retired' : v.status);
  const usable = (id: string | undefined) => {
    const v = id ? findVersion(id) : undefined;
    return v && status.get(v.id) !== 'retired' ? v : undefined;
  };
  const def = usable(stored.default) ?? DEFAULT_VERSION;
  status.set(def.id, 'live');
  const challengerId = stored.challenger !== undefined ? stored.challenger : configuredChallenger;
  const challenger = usable(challengerId);
  return { default: def, ...(challenger && challenger !== def ? { challenger } : {}), status };
}

export const AS_RELEASED: VersionState = effectiveState({});

export async function readVersionState(
  redis: RedisClient,
  key = VERSION_STATE_KEY,
): Promise<StoredVersionState> {
  return (await redis.hgetall(key)) as StoredVersionState;
}

/** Admin writes: each checks the target against the current state and announces the change. */
export class VersionAdmin {
  private readonly redis: RedisClient;
  private readonly key: string;

  constructor(redis: RedisClient, key = VERSION_STATE_KEY) {
    this.redis = redis;
    this.key = key;
  }

  async show(configuredChallenger?: string) {
    const state = effectiveState(await readVersionState(this.redis, this.key), configuredChallenger);
    return {
      default: state.default.id,
      challenger: state.challenger?.id ?? null,
      versions: SCORE_VERSIONS.map((v) => ({ id: v.id, status: state.status.get(v.id), hash: v.hash })),
    };
  }

  private async known(id: string, configuredChallenger?: string) {
    const v = findVersion(id);
    if (!v) throw new Error(`unknown score version ${id}`);
    const state = effectiveState(await readVersionState(this.redis, this.key), configuredChallenger);
    return { v, state };
  }

  private async write(fields: Record<string, string>): Promise<void> {
    await this.redis.hset(this.key, fields);
    await this.redis.publish(`${this.key}:changed`, '1');
  }

  async setChallenger(id: string | null): Promise<void> {
    if (id === null) return this.write({ challenger: '' });
    const { v, state } = await this.known(id);
    if (state.status.get(v.id) === 'retired') throw new Error(`${id} is retired`);
    if (state.default === v) throw new Error(`${id} is the default`);
    await this.write({ challenger: id });
  }

  /** Makes `id` the default on every node; the old default stays live (stored scores explain). */
  async promote(id: string): Promise<void> {
    const { v, state } = await this.known(id);
    if (state.status.get(v.id) === 'retired') throw new Error(`${id} is retired`);
    const fields: Record<string, string> = { default: id };
    // A challenger that becomes the default is no longer a challenger.
    if (state.challenger === v) fields.challenger = '';
    await this.write(fields);
  }

  /** No new score uses it; its definition stays, so stored scores still explain and reproduce. */
  async retire(id: string): Promise<void> {
    const { v, state } = await this.known(id);
    if (state.default === v) throw new Error(`${id} is the default: promote another version first`);
    const retired = new Set(
      ((await readVersionState(this.redis, this.key)).retired ?? '').split(',').filter(Boolean),
    );
    retired.add(id);
    const fields: Record<string, string> = { retired: [...retired].join(',') };
    if (state.challenger === v) fields.challenger = '';
    await this.write(fields);
  }
}
