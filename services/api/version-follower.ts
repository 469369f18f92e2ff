/**
 * The node's view of the score-version state (default and challenger): read at start, re-read
 * on each announcement and on a poll (a missed announcement costs at most one poll interval),
 * always off the hot path. A request reads `current` once, so a switch lands between requests.
 * While Redis cannot be read the node keeps the state it has.
 */
import type { RedisClient } from '../../shared/clients/redis.ts';
import type { Logger } from '../../shared/logger.ts';
import { effectiveState, readVersionState, type VersionState } from '../../shared/scoring/version-state.ts';

export interface VersionFollowerDeps {
  redis: RedisClient;
  /** A connection that may already be subscribed to other channels; messages are filtered. */
  subscriber: RedisClient;
  key: string;
  configuredChallenger?: string;
  pollMs: number;
  log: Logger;
}

export class VersionFollower {
  current: VersionState;
  private readonly deps: VersionFollowerDeps;
  private timer: NodeJS.Timeout | undefined;

  constructor(deps: VersionFollowerDeps) {
    this.deps = deps;
    this.current = effectiveState({}, deps.configuredChallenger);
    if (deps.configuredChallenger && !this.current.challenger) {
      // Said once at start: an unknown, retired or default version cannot be the challenger.
      deps.log.warn(
        { challenger: deps.configuredChallenger },
        'SCORE_CHALLENGER is not a usable challenger; ignored',
      );
    }
  }

  async start(): Promise<void> {
    const { subscriber, key, log } = this.deps;
    const channel = `${key}:changed`;
    subscriber.on('message', (ch: string) => {
      if (ch === channel) void this.sync();
    });
    await subscriber.subscribe(channel).catch((err) => log.warn({ err }, 'no version announcements'));
    await this.sync();
    this.timer = setInterval(() => void this.sync(), this.deps.pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async sync(): Promise<void> {
    try {
      const next = effectiveState(
        await readVersionState(this.deps.redis, this.deps.key),
        this.deps.configuredChallenger,
      );
      const before = this.current;
      this.current = next;
      if (before.default !== next.default || before.challenger !== next.challenger) {
        this.deps.log.info(
          { default: next.default.id, challenger: next.challenger?.id ?? null },
          'score versions changed',
        );
      }
    } catch (err) {
      this.deps.log.warn({ err }, 'score version state not read; keeping the current one');
    }
  }
}
