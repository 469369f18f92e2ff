/**
 * An organisation's allow/deny lists in Redis, the durable store every API node loads them from
 * (services/api/org-lists.ts). Keys (shared/orgs/keyspace.ts), all under the org id's hash tag:
 *
 *   frs:list:{org}          hash: entry id (`kind:value`) -> the rest of the entry (encodeEntry)
 *   frs:list:{org}:version  counter, raised by every change
 *   frs:list:{org}:outbox   stream: every change, until the audit sink has it in ClickHouse
 *   frs:list:{org}:tmp:<t>  a replace's new list while it is written (expires if the writer dies)
 *   frs:lists:orgs          set of the organisations that ever held lists (no service may SCAN)
 *
 * Each change is one Lua script: the entries, the version, the outbox record and the announcement
 * on LISTS_CHANGED_CHANNEL together, so no change is lost from the audit and none is audited
 * without happening. A script rather than MULTI because the limit of entries and the count a
 * replace reports must be read in the same atomic step as the write.
 */
import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../clients/redis.ts';
import { runInTurns, sortedInSlices, type Slices } from '../sliced-work.ts';
import { ListEntryError, listEntryId } from '../capabilities/org-lists/entry.ts';
import {
  LIST_EFFECTS,
  LIST_ENTRY_KINDS,
  MAX_LIST_ENTRIES,
  type ListChange,
  type ListEntry,
  type ListEntryInput,
} from '../capabilities/org-lists/types.ts';
import {
  LISTS_CHANGED_CHANNEL,
  LISTS_INDEX_KEY,
  listKey,
  listOutboxKey,
  listTempKey,
  listVersionKey,
} from './keyspace.ts';

/** Entries per HSET while a replace writes its temporary hash: bounded commands and turns. */
const WRITE_CHUNK = 1_000;
/** Fields per HSCAN reply while a list loads: no single reply (or event-loop turn) holds 100,000. */
const READ_CHUNK = 2_000;
/** Entries decoded or checked between two yields (shared/sliced-work.ts). */
const DECODE_STEP = 128;
/** A replace's temporary hash outlives any writer that is still writing, not one that died. */
const TEMP_TTL_S = 600;
/** Scans of a list that a concurrent change invalidated before it is read in one reply instead. */
const SCAN_ATTEMPTS = 3;

/**
 * KEYS: list, version, outbox. ARGV: max, channel, org id, n, then n triples (entry id, entry
 * JSON, change JSON). Refused (-1, size) when the list would pass `max`; else (version, 0).
 */
const ADD = `
local n = tonumber(ARGV[4])
local fresh = 0
for i = 0, n - 1 do
  if redis.call('HEXISTS', KEYS[1], ARGV[5 + i * 3]) == 0 then fresh = fresh + 1 end
end
local size = redis.call('HLEN', KEYS[1])
if size + fresh > tonumber(ARGV[1]) then return {-1, size} end
for i = 0, n - 1 do
  local at = 5 + i * 3
  redis.call('HSET', KEYS[1], ARGV[at], ARGV[at + 1])
  redis.call('XADD', KEYS[3], '*', 'change', ARGV[at + 2], 'id', ARGV[at], 'entry', ARGV[at + 1])
end
local version = redis.call('INCR', KEYS[2])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return {version, 0}`;

/**
 * KEYS: list, version, outbox. ARGV: channel, org id, n, then n pairs (entry id, change JSON).
 * Records the stored entry of each id it removes; (removed, version).
 */
const REMOVE = `
local n = tonumber(ARGV[3])
local removed = 0
for i = 0, n - 1 do
  local at = 4 + i * 2
  local entry = redis.call('HGET', KEYS[1], ARGV[at])
  if entry then
    redis.call('HDEL', KEYS[1], ARGV[at])
    redis.call('XADD', KEYS[3], '*', 'change', ARGV[at + 1], 'id', ARGV[at], 'entry', entry)
    removed = removed + 1
  end
end
if removed == 0 then return {0, tonumber(redis.call('GET', KEYS[2]) or '0')} end
local version = redis.call('INCR', KEYS[2])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return {removed, version}`;

/**
 * KEYS: list, temp, version, outbox. ARGV: change JSON, entries after, channel, org id. The temp
 * hash must hold exactly `after` entries (one that expired half-written does not). (version, before).
 */
const REPLACE = `
local after = tonumber(ARGV[2])
if redis.call('HLEN', KEYS[2]) ~= after then
  return redis.error_reply('ERR the new list is not complete (' .. redis.call('HLEN', KEYS[2]) .. ' of ' .. after .. ')')
end
local before = redis.call('HLEN', KEYS[1])
if after > 0 then
  redis.call('RENAME', KEYS[2], KEYS[1])
  redis.call('PERSIST', KEYS[1])
else
  redis.call('DEL', KEYS[1])
end
local version = redis.call('INCR', KEYS[3])
redis.call('XADD', KEYS[4], '*', 'change', ARGV[1], 'before', before, 'after', after)
redis.call('PUBLISH', ARGV[3], ARGV[4])
return {version, before}`;

type ScriptedRedis = RedisClient & {
  frsListAdd(list: string, version: string, outbox: string, ...argv: (string | number)[]): Promise<number[]>;
  frsListRemove(
    list: string,
    version: string,
    outbox: string,
    ...argv: (string | number)[]
  ): Promise<number[]>;
  frsListReplace(
    list: string,
    temp: string,
    version: string,
    outbox: string,
    ...argv: (string | number)[]
  ): Promise<number[]>;
};

/**
 * One record of an organisation's audit outbox: its stream id and the change it holds, or none
 * when the record is not one this store writes (it is reported and dropped, never retried).
 */
export interface OutboxRecord {
  id: string;
  change: ListChange | undefined;
}

/** `key:<key id>`, `user:<email>` or `operator:<name>`: who made a change, as audited. */
const ACTOR = /^(key|user|operator):[^\p{C}]{1,200}$/u;

export class OrgListStore {
  private readonly redis: ScriptedRedis;

  constructor(redis: RedisClient) {
    redis.defineCommand('frsListAdd', { lua: ADD, numberOfKeys: 3 });
    redis.defineCommand('frsListRemove', { lua: REMOVE, numberOfKeys: 3 });
    redis.defineCommand('frsListReplace', { lua: REPLACE, numberOfKeys: 4 });
    this.redis = redis as ScriptedRedis;
  }

  /** Every entry of the organisation, ordered by kind and value (sorted in event-loop turns). */
  async list(orgId: string): Promise<ListEntry[]> {
    const { entries } = await this.snapshot(orgId);
    const order = (e: ListEntry) => LIST_ENTRY_KINDS.indexOf(e.kind);
    return runInTurns(
      sortedInSlices(
        entries,
        (a, b) => order(a) - order(b) || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0),
      ),
    );
  }

  async version(orgId: string): Promise<number> {
    return Number((await this.redis.get(listVersionKey(orgId))) ?? 0);
  }

  /**
   * The entries with the version they are at. The stored text is read in HSCAN slices (a change
   * that overlapped the read, the version having moved, makes it read again, and after
   * SCAN_ATTEMPTS in one HGETALL with the version), then decoded in event-loop turns: decoding is
   * most of a load's time, and the read alone is short enough that a change rarely overlaps it.
   * Throws when an entry is not one this store writes: a node then keeps its previous view.
   */
  async snapshot(orgId: string): Promise<{ version: number; entries: ListEntry[] }> {
    for (let attempt = 0; attempt < SCAN_ATTEMPTS; attempt++) {
      const version = await this.version(orgId);
      const stored = await this.scan(orgId);
      if ((await this.version(orgId)) === version)
        return { version, entries: await runInTurns(decoded(stored)) };
    }
    const [[verr, version], [herr, all]] = (await this.redis
      .multi()
      .get(listVersionKey(orgId))
      .hgetall(listKey(orgId))
      .exec()) as [[Error | null, string | null], [Error | null, Record<string, string>]];
    if (verr ?? herr) throw verr ?? herr;
    return {
      version: Number(version ?? 0),
      entries: await runInTurns(decoded(new Map(Object.entries(all)))),
    };
  }

  /** Entry id -> stored text. An element can come back twice from HSCAN (a rehash in between). */
  private async scan(orgId: string): Promise<Map<string, string>> {
    const byId = new Map<string, string>();
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscan(listKey(orgId), cursor, 'COUNT', READ_CHUNK);
      cursor = next;
      for (let i = 0; i + 1 < flat.length; i += 2) byId.set(flat[i]!, flat[i + 1]!);
    } while (cursor !== '0');
    return byId;
  }

  /** Adds entries, or replaces those with the same kind and value. Refused past MAX_LIST_ENTRIES. */
  async add(
    orgId: string,
    inputs: ListEntryInput[],
    actor: string,
    now = new Date(),
  ): Promise<{ version: number }> {
    const entries = await runInTurns(checkedEntries(inputs, actor, now));
    if (entries.length === 0) return { version: await this.version(orgId) };
    await this.index(orgId);
    const argv = entries.flatMap((e) => [
      listEntryId(e),
      encodeEntry(e),
      changeJson(orgId, 'add', actor, now),
    ]);
    const [version, size] = await this.redis.frsListAdd(
      listKey(orgId),
      listVersionKey(orgId),
      listOutboxKey(orgId),
      MAX_LIST_ENTRIES,
      LISTS_CHANGED_CHANNEL,
      orgId,
      entries.length,
      ...argv,
    );
    if (version === -1)
      throw new ListEntryError(
        `an organisation holds at most ${MAX_LIST_ENTRIES} entries; it holds ${size}: remove some first`,
      );
    return { version: version! };
  }

  /** Removes the entries of these ids (`kind:value`, listEntryId); ids not held are ignored. */
  async remove(
    orgId: string,
    ids: string[],
    actor: string,
    now = new Date(),
  ): Promise<{ removed: number; version: number }> {
    checkedActor(actor);
    const unique = [...new Set(ids)];
    if (unique.length === 0) return { removed: 0, version: await this.version(orgId) };
    const argv = unique.flatMap((id) => [id, changeJson(orgId, 'remove', actor, now)]);
    const [removed, version] = await this.redis.frsListRemove(
      listKey(orgId),
      listVersionKey(orgId),
      listOutboxKey(orgId),
      LISTS_CHANGED_CHANNEL,
      orgId,
      unique.length,
      ...argv,
    );
    return { removed: removed!, version: version! };
  }

  /**
   * Replaces the whole list: the new one is written to a temporary hash (pipelined slices), then
   * one script renames it over the list with the version and the audit record. Readers see the
   * old list or the new one, never part of either. Refused whole for one bad entry.
   */
  async replace(
    orgId: string,
    inputs: ListEntryInput[],
    actor: string,
    now = new Date(),
  ): Promise<{ version: number; before: number; after: number }> {
    const entries = await runInTurns(checkedEntries(inputs, actor, now));
    if (entries.length > MAX_LIST_ENTRIES)
      throw new ListEntryError(
        `an organisation holds at most ${MAX_LIST_ENTRIES} entries; given ${entries.length}`,
      );
    await this.index(orgId);
    const temp = listTempKey(orgId, randomBytes(8).toString('hex'));
    try {
      await this.writeTemp(temp, entries);
      const [version, before] = await this.redis.frsListReplace(
        listKey(orgId),
        temp,
        listVersionKey(orgId),
        listOutboxKey(orgId),
        changeJson(orgId, 'replace', actor, now),
        entries.length,
        LISTS_CHANGED_CHANNEL,
        orgId,
      );
      return { version: version!, before: before!, after: entries.length };
    } finally {
      // Gone after a rename; left behind only by a failed one.
      await this.redis.del(temp).catch(() => undefined);
    }
  }

  /**
   * One HSET of WRITE_CHUNK entries at a time, each encoded just before it is sent: the whole list
   * encoded and queued in one pipeline was a stall of some 200 ms for 100,000 entries.
   */
  private async writeTemp(temp: string, entries: ListEntry[]): Promise<void> {
    for (let i = 0; i < entries.length; i += WRITE_CHUNK) {
      const fields = entries.slice(i, i + WRITE_CHUNK).flatMap((e) => [listEntryId(e), encodeEntry(e)]);
      if (i > 0) await this.redis.hset(temp, ...fields);
      else {
        const failed = (
          await this.redis
            .multi()
            .hset(temp, ...fields)
            .expire(temp, TEMP_TTL_S)
            .exec()
        )?.find(([err]) => err);
        if (failed) throw failed[0]!;
      }
    }
  }

  /** Before the change: an organisation in the set with an empty list is harmless, the reverse is not. */
  private async index(orgId: string): Promise<void> {
    await this.redis.sadd(LISTS_INDEX_KEY, orgId);
  }

  async orgsWithLists(): Promise<string[]> {
    return (await this.redis.smembers(LISTS_INDEX_KEY)).sort();
  }

  /** The oldest `count` records of an organisation's audit outbox (the audit sink drains them). */
  async outbox(orgId: string, count: number): Promise<OutboxRecord[]> {
    const rows = await this.redis.xrange(listOutboxKey(orgId), '-', '+', 'COUNT', count);
    return rows.map(([id, kv]) => {
      try {
        return { id, change: outboxChange(orgId, kv) };
      } catch {
        return { id, change: undefined };
      }
    });
  }

  /** Drops records from the outbox once ClickHouse holds them. */
  async acknowledge(orgId: string, ids: string[]): Promise<number> {
    return ids.length === 0 ? 0 : this.redis.xdel(listOutboxKey(orgId), ...ids);
  }
}

function checkedActor(actor: string): void {
  if (!ACTOR.test(actor)) throw new Error(`not an actor (key:, user: or operator: and a name): ${actor}`);
}

/**
 * The entries as stored, stamped, each id at most once. They come from parseListEntry (every
 * writer parses its input with it, a CSV through parseListCsv): only their shape is checked here,
 * so a 100,000-line upload is not parsed twice.
 */
function* checkedEntries(inputs: ListEntryInput[], actor: string, now: Date): Slices<ListEntry[]> {
  checkedActor(actor);
  const addedAt = now.toISOString();
  const seen = new Set<string>();
  const entries: ListEntry[] = [];
  for (const { kind, value, effect, reason, expires_at } of inputs) {
    const entry: ListEntry = { kind, value, effect, reason, added_by: actor, added_at: addedAt };
    if (expires_at !== undefined) entry.expires_at = expires_at;
    const id = listEntryId(entry);
    if (!isEntry(entry)) throw new ListEntryError(`not a parsed list entry (parseListEntry): ${kind}`);
    if (seen.has(id)) throw new ListEntryError(`${kind} entry given twice`);
    seen.add(id);
    entries.push(entry);
    if (entries.length % DECODE_STEP === 0) yield;
  }
  return entries;
}

/** What every outbox record starts with; the script adds the entry or the counts. */
function changeJson(orgId: string, action: ListChange['action'], actor: string, now: Date): string {
  return JSON.stringify({
    change_id: `lc_${randomBytes(16).toString('hex')}`,
    org_id: orgId,
    action,
    actor,
    at: now.toISOString(),
  });
}

/**
 * How an entry is stored under its id: `[effect, reason, added_by, added_at, expires_at?]`. The
 * id holds kind and value; an array parses two to three times faster than an object, which is
 * most of the time a node takes to load 100,000 entries.
 */
function encodeEntry(e: ListEntry): string {
  const head = [e.effect, e.reason, e.added_by, e.added_at];
  return JSON.stringify(e.expires_at === undefined ? head : [...head, e.expires_at]);
}

/** Stored entries decoded, a slice at a time. */
function* decoded(stored: Map<string, string>): Slices<ListEntry[]> {
  const entries: ListEntry[] = [];
  const repeats = new Repeats();
  for (const [id, text] of stored) {
    entries.push(storedEntry(id, text, repeats));
    if (entries.length % DECODE_STEP === 0) yield;
  }
  return entries;
}

/**
 * The previous entry's texts, given again for an equal text (a replace stamps every entry with
 * one actor and time, an upload often gives one reason): a load then keeps one copy, and the
 * young-generation collections, whose pauses grow with what survives them, have less to copy.
 */
class Repeats {
  private last: string[] = [];

  same<T>(field: number, value: T): T {
    if (typeof value !== 'string') return value;
    if (this.last[field] === value) return this.last[field] as T;
    this.last[field] = value;
    return value;
  }
}

/** A stored entry, checked: anything else in the hash means the list cannot be trusted. */
function storedEntry(id: string, stored: string, repeats = new Repeats()): ListEntry {
  let fields: unknown;
  try {
    fields = JSON.parse(stored);
  } catch {
    throw new Error(`list entry ${id} is not JSON`);
  }
  const colon = id.indexOf(':');
  if (!Array.isArray(fields) || colon < 0) throw new Error(`list entry ${id} is not a list entry`);
  const [effect, reason, added_by, added_at, expires_at] = fields as unknown[];
  const head = {
    kind: LIST_ENTRY_KINDS.find((k) => k.length === colon && id.startsWith(k)),
    value: id.slice(colon + 1),
    effect: LIST_EFFECTS.find((x) => x === effect),
    reason: repeats.same(0, reason),
    added_by: repeats.same(1, added_by),
    added_at: repeats.same(2, added_at),
  };
  const entry = expires_at === undefined ? head : { ...head, expires_at: repeats.same(3, expires_at) };
  if (!isEntry(entry)) throw new Error(`list entry ${id} is not a list entry`);
  return entry;
}

function isEntry(e: unknown): e is ListEntry {
  if (typeof e !== 'object' || e === null) return false;
  const x = e as Record<string, unknown>;
  return (
    (LIST_ENTRY_KINDS as readonly unknown[]).includes(x.kind) &&
    (LIST_EFFECTS as readonly unknown[]).includes(x.effect) &&
    typeof x.value === 'string' &&
    x.value !== '' &&
    typeof x.reason === 'string' &&
    typeof x.added_by === 'string' &&
    typeof x.added_at === 'string' &&
    (x.expires_at === undefined || typeof x.expires_at === 'string')
  );
}

/** An outbox record as the ListChange it audits. */
function outboxChange(orgId: string, kv: string[]): ListChange {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < kv.length; i += 2) fields.set(kv[i]!, kv[i + 1]!);
  const head = JSON.parse(fields.get('change') ?? 'null') as Pick<
    ListChange,
    'change_id' | 'action' | 'actor' | 'at'
  > | null;
  if (!head) throw new Error('no change');
  const change: ListChange = { ...head, org_id: orgId, entries: 1 };
  const entry = fields.get('entry');
  if (entry !== undefined) {
    const e = storedEntry(fields.get('id') ?? '', entry);
    return { ...change, kind: e.kind, value: e.value, effect: e.effect, reason: e.reason };
  }
  return { ...change, entries: Number(fields.get('after')), entries_before: Number(fields.get('before')) };
}
