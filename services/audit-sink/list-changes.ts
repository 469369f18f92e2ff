/**
 * The audit of organisations' list changes: every DRAIN_MS, each organisation's outbox stream in
 * Redis (written by the change itself, shared/orgs/lists-store.ts) is copied into ClickHouse
 * `list_changes` (migration 012), and the records are removed from the stream only once ClickHouse
 * accepted them. At least once: a copy made again (the sink stopped between insert and trim)
 * collapses on change_id. Changes keep being made while ClickHouse is down; they wait in Redis.
 */
import { Counter } from 'prom-client';
import type { ClickHouseClient } from '../../shared/clients/clickhouse.ts';
import type { ListChange } from '../../shared/capabilities/org-lists/types.ts';
import type { Logger } from '../../shared/logger.ts';
import type { OrgListStore } from '../../shared/orgs/lists-store.ts';

/** How often the outboxes are read: a change is in ClickHouse a few seconds after it was made. */
export const DRAIN_MS = 2_000;
/** Records read (and rows inserted) at a time per organisation; a replace is one record. */
const BATCH = 5_000;

const copied = new Counter({
  name: 'frs_sink_list_changes_total',
  help: 'List changes copied from the outbox streams in Redis to ClickHouse list_changes',
});
const unreadable = new Counter({
  name: 'frs_sink_list_changes_unreadable_total',
  help: 'Outbox records that were not list changes (not written by the list store): logged and dropped',
});

export interface ListChangesDeps {
  store: Pick<OrgListStore, 'orgsWithLists' | 'outbox' | 'acknowledge'>;
  ch: ClickHouseClient;
  database: string;
  log: Logger;
  everyMs?: number;
}

/** The row of `list_changes` a change becomes (column comments live in the migration). */
export function listChangeRow(c: ListChange) {
  return {
    change_id: c.change_id,
    org_id: c.org_id,
    changed_at: Math.floor(Date.parse(c.at) / 1000),
    action: c.action,
    actor: c.actor,
    entries: c.entries,
    entries_before: c.entries_before ?? 0,
    kind: c.kind ?? '',
    value: c.value ?? '',
    effect: c.effect ?? '',
    reason: c.reason ?? '',
  };
}

export class ListChangesDrain {
  private readonly deps: ListChangesDeps;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private failing = false;

  constructor(deps: ListChangesDeps) {
    this.deps = deps;
  }

  start(): void {
    this.schedule();
  }

  /** Stops the timer and waits for a drain in flight (its rows inserted and trimmed, or left). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.drainAndReport().finally(() => this.schedule());
    }, this.deps.everyMs ?? DRAIN_MS);
  }

  private async drainAndReport(): Promise<void> {
    try {
      await this.drain();
      if (this.failing) this.deps.log.info('list changes reach ClickHouse again');
      this.failing = false;
    } catch (err) {
      // Once per outage: the records stay in Redis and the next round tries again.
      if (!this.failing) this.deps.log.warn({ err }, 'list changes not copied to ClickHouse; retrying');
      this.failing = true;
    }
  }

  /** Copies every organisation's outbox to ClickHouse; how many changes it copied. */
  async drain(): Promise<number> {
    let n = 0;
    for (const org of await this.deps.store.orgsWithLists()) {
      for (;;) {
        const copiedNow = await this.drainBatch(org);
        n += copiedNow.records;
        if (copiedNow.records < BATCH || this.stopped) break;
      }
    }
    return n;
  }

  private async drainBatch(org: string): Promise<{ records: number }> {
    const { store, ch, database, log } = this.deps;
    const records = await store.outbox(org, BATCH);
    if (records.length === 0) return { records: 0 };
    const rows = records.flatMap((r) => (r.change ? [listChangeRow(r.change)] : []));
    const bad = records.length - rows.length;
    if (bad > 0) {
      unreadable.inc(bad);
      log.error({ org, records: bad }, 'outbox records that are not list changes: dropped');
    }
    if (rows.length > 0)
      await ch.insert({ table: `${database}.list_changes`, values: rows, format: 'JSONEachRow' });
    await store.acknowledge(
      org,
      records.map((r) => r.id),
    );
    copied.inc(rows.length);
    return { records: records.length };
  }
}
