import { readFileSync } from 'node:fs';
import type { RedisClient } from '../../../shared/clients/redis.ts';
import type { AdmitReply } from './admit-args.ts';

type Args = (string | number)[];

/** The client with the controls' Lua scripts as commands of its own (`scripted`). */
export type ScriptedRedis = RedisClient & {
  /** The last argument is how many requests the run admits: a flat list of three values each. */
  frsAdmit(rate: string, credits: string, ...args: Args): Promise<unknown[]>;
  frsAdmitIdempotent(
    rate: string,
    credits: string,
    idem: string,
    idemCount: string,
    ...args: Args
  ): Promise<AdmitReply>;
  frsStoreResponse(key: string, ...args: Args): Promise<number>;
  frsRelease(credits: string, ...args: Args): Promise<number>;
  frsReconcile(credits: string, marker: string, ...args: Args): Promise<number>;
  frsSettle(credits: string, idem: string, marker: string, ...args: Args): Promise<number>;
  frsReleaseIdempotent(credits: string, idem: string, ...args: Args): Promise<number>;
};

/**
 * Each command: the script it runs and how many of its arguments are keys. One script, two key
 * counts: a command with a fixed numberOfKeys is one whose keys ioredis knows, so its
 * auto-pipeline sends it to the node of its slot (with the count as the first argument it would
 * route by the count's digits). Every key is the organisation's ({org_...}).
 */
export const COMMANDS = [
  { name: 'frsAdmit', script: 'admit', keys: 2 },
  { name: 'frsAdmitIdempotent', script: 'admit', keys: 4 },
  { name: 'frsStoreResponse', script: 'store-response', keys: 1 },
  { name: 'frsRelease', script: 'release', keys: 1 },
  { name: 'frsReleaseIdempotent', script: 'release', keys: 2 },
  { name: 'frsReconcile', script: 'reconcile', keys: 2 },
  { name: 'frsSettle', script: 'settle', keys: 3 },
] as const;

export function scriptSource(script: string): string {
  return readFileSync(new URL(`./${script}.lua`, import.meta.url), 'utf8');
}

/** Defines the controls' commands on `redis` (once per client). */
export function scripted(redis: RedisClient): ScriptedRedis {
  const sources = new Map(COMMANDS.map((c) => [c.script, scriptSource(c.script)]));
  for (const c of COMMANDS)
    redis.defineCommand(c.name, { lua: sources.get(c.script)!, numberOfKeys: c.keys });
  return redis as ScriptedRedis;
}
