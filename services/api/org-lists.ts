/**
 * The organisations' allow/deny lists as one API node holds them: every list is loaded from Redis
 * at start (the organisations in the lists index), reloaded when its organisation is announced on
 * LISTS_CHANGED_CHANNEL, and checked against its version every POLL_MS so a missed announcement
 * (a dropped subscription, a failover) costs at most one poll. Scoring reads the in-memory index
 * only, never Redis. An organisation whose load fails keeps the view it had, reported degraded
 * until a load succeeds; it never sees another organisation's lists.
 */
import { Gauge, type Registry } from 'prom-client';
import { buildListIndexInTurns } from '../../shared/capabilities/org-lists/list-index.ts';
import type { ListEntry, OrgListsLookup, OrgListsView } from '../../shared/capabilities/org-lists/types.ts';
import type { Logger } from '../../shared/logger.ts';
import { LISTS_CHANGED_CHANNEL } from '../../shared/orgs/keyspace.ts';
import type { OrgListStore } from '../../shared/orgs/lists-store.ts';

/** How often every organisation's version is compared with the one held. */
export const POLL_MS = 2_000;
/** Longest wait for the first load before the node is ready anyway (unloaded lists degraded). */
export const READY_WITHIN_MS = 30_000;
/** Lists loaded at once at start: a few connections' worth, not one per organisation. */
const LOAD_CONCURRENCY = 4;

export interface OrgListsDeps {
  /** On a connection of its own: a 100,000-entry load must not queue the hot path's commands. */
  store: Pick<OrgListStore, 'orgsWithLists' | 'version' | 'snapshot'>;
  /** A connection only for the announcements (a subscribed connection can do nothing else). */
  subscriber: {
    on(event: 'message', listener: (channel: string, message: string) => void): unknown;
    subscribe(channel: string): Promise<unknown>;
  };
  log: Logger;
  pollMs?: number;
  readyWithinMs?: number;
  /** Where the gauges go (the node's /metrics); none in tests that do not read them. */
  registers?: Registry[];
  /** Builds in event-loop turns: a 100,000-entry index in one go would stall every score. */
  build?: (entries: readonly ListEntry[]) => Promise<OrgListsView>;
}

type Answer = ReturnType<OrgListsLookup['forOrg']>;

interface Held {
  /** -1 until a load succeeded. */
  version: number;
  entries: number;
  /** What forOrg answers, made once per load so a request allocates nothing. */
  answer: Answer;
}

const NONE: Answer = Object.freeze({ lists: undefined, degraded: false });
const UNKNOWN: Answer = Object.freeze({ lists: undefined, degraded: true });

export class OrgLists implements OrgListsLookup {
  private readonly deps: OrgListsDeps;
  private readonly build: (entries: readonly ListEntry[]) => Promise<OrgListsView>;
  private readonly held = new Map<string, Held>();
  /** Whether the index of organisations with lists was read once: until then none can be answered. */
  private known = false;
  private loaded = false;
  private waitedEnough = false;
  private syncing = false;
  private readonly loading = new Map<string, Promise<void>>();
  private readonly loadAgain = new Set<string>();
  private timers: NodeJS.Timeout[] = [];
  /** Seconds the last load of one organisation's lists took (read, parse and index). */
  lastLoadS = 0;

  constructor(deps: OrgListsDeps) {
    this.deps = deps;
    this.build = deps.build ?? buildListIndexInTurns;
    if (deps.registers) this.registerMetrics(deps.registers);
  }

  /** Ready once every list was loaded (or tried), or READY_WITHIN_MS after start, whichever first. */
  get ready(): boolean {
    return this.loaded || this.waitedEnough;
  }

  forOrg(orgId: string): Answer {
    return this.held.get(orgId)?.answer ?? (this.known ? NONE : UNKNOWN);
  }

  async start(): Promise<void> {
    const { subscriber, log } = this.deps;
    subscriber.on('message', (channel: string, orgId: string) => {
      if (channel === LISTS_CHANGED_CHANNEL) void this.reload(orgId);
    });
    const bound = setTimeout(() => {
      this.waitedEnough = true;
      if (!this.loaded) log.warn('org lists not all loaded in time; serving, the missing ones degraded');
    }, this.deps.readyWithinMs ?? READY_WITHIN_MS);
    const poll = setInterval(() => void this.sync(), this.deps.pollMs ?? POLL_MS);
    this.timers = [bound, poll];
    for (const t of this.timers) t.unref();
    await subscriber
      .subscribe(LISTS_CHANGED_CHANNEL)
      .catch((err: unknown) => log.warn({ err }, 'no org list announcements; following by poll'));
    await this.sync();
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
  }

  /** Loads every organisation whose version moved, or whose last load failed. */
  async sync(): Promise<void> {
    if (this.syncing) return;
    this.syncing = true;
    try {
      const orgs = await this.deps.store.orgsWithLists();
      // Listed but not loaded yet: degraded, not "no lists", until its load succeeds.
      for (const org of orgs)
        if (!this.held.has(org)) this.held.set(org, { version: -1, entries: 0, answer: UNKNOWN });
      this.known = true;
      const stale = await this.staleOf(orgs);
      await inParallel(stale, LOAD_CONCURRENCY, (org) => this.reload(org));
      this.loaded = true;
    } catch (err) {
      this.deps.log.warn({ err }, 'org lists index not read; keeping the lists held');
    } finally {
      this.syncing = false;
    }
  }

  private async staleOf(orgs: string[]): Promise<string[]> {
    const versions = await Promise.all(orgs.map((org) => this.deps.store.version(org).catch(() => -1)));
    return orgs.filter((org, i) => {
      const h = this.held.get(org)!;
      return h.answer.degraded || versions[i] === -1 || h.version !== versions[i];
    });
  }

  /** One load per organisation at a time; an announcement during it loads once more after it. */
  private reload(orgId: string): Promise<void> {
    const running = this.loading.get(orgId);
    if (running) {
      this.loadAgain.add(orgId);
      return running;
    }
    const load = this.load(orgId).finally(() => {
      this.loading.delete(orgId);
      if (this.loadAgain.delete(orgId)) void this.reload(orgId);
    });
    this.loading.set(orgId, load);
    return load;
  }

  private async load(orgId: string): Promise<void> {
    const started = performance.now();
    const before = this.held.get(orgId);
    try {
      const { version, entries } = await this.deps.store.snapshot(orgId);
      const lists = entries.length > 0 ? await this.build(entries) : undefined;
      // The view held so far answered every score while this one was read and built, in turns.
      this.held.set(orgId, {
        version,
        entries: entries.length,
        answer: lists ? { lists, degraded: false } : NONE,
      });
      this.lastLoadS = (performance.now() - started) / 1000;
      if (before?.answer.degraded && before.version !== -1)
        this.deps.log.info({ org: orgId, version }, 'org lists loaded again');
    } catch (err) {
      if (!before?.answer.degraded)
        this.deps.log.warn({ err, org: orgId }, 'org lists not loaded; keeping the previous view, degraded');
      const lists = before?.answer.lists;
      this.held.set(orgId, {
        version: -1,
        entries: before?.entries ?? 0,
        answer: lists ? { lists, degraded: true } : UNKNOWN,
      });
    }
  }

  private registerMetrics(registers: Registry[]): void {
    const gauge = (name: string, help: string, value: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(value());
        },
      });
    const held = () => [...this.held.values()];
    gauge('frs_org_lists_entries', 'List entries held, all organisations together', () =>
      held().reduce((n, h) => n + h.entries, 0),
    );
    gauge('frs_org_lists_organisations', 'Organisations whose lists this node holds', () => this.held.size);
    gauge(
      'frs_org_lists_degraded_organisations',
      'Organisations whose lists this node could not load (scored with org_lists degraded)',
      () => held().filter((h) => h.answer.degraded).length,
    );
    gauge(
      'frs_org_lists_last_load_seconds',
      "Seconds the last load of one organisation's lists took (read, check, index)",
      () => this.lastLoadS,
    );
  }
}

/** Runs `fn` over `items`, at most `width` at once. */
async function inParallel<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}
