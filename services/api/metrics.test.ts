import { describe, expect, it } from 'vitest';
import type { AuditCounters } from './audit-publisher.ts';
import type { PublisherState } from './audit-publisher-state.ts';
import { ApiMetrics } from './metrics.ts';

describe('API metrics of the audit publisher', () => {
  it('exports the publisher counters and journal size as read at scrape time', async () => {
    const counters: AuditCounters = {
      sent: 5,
      raced: 1,
      spilled: 3,
      replayed: 2,
      dropped: 0,
      journalBytes: 4096,
    };
    const metrics = new ApiMetrics({
      capabilities: () => ({}),
      auditDepth: () => 0,
      audit: () => counters,
      publisherStates: () => ({}),
      explainCopiesSkipped: () => 0,
      recentScoresSkipped: () => 0,
    });
    const first = await metrics.registry.metrics();
    expect(first).toMatch(/^# TYPE frs_audit_records_sent_total counter$/m);
    expect(first).toMatch(/^frs_audit_records_sent_total 5$/m);
    expect(first).toMatch(/^frs_audit_records_raced_total 1$/m);
    expect(first).toMatch(/^frs_audit_records_spilled_total 3$/m);
    expect(first).toMatch(/^frs_audit_records_replayed_total 2$/m);
    expect(first).toMatch(/^frs_audit_records_dropped_total 0$/m);
    expect(first).toMatch(/^frs_audit_journal_bytes 4096$/m);
    // Later scrapes show the publisher's current figures, not a sum of earlier scrapes.
    Object.assign(counters, { sent: 9, dropped: 1, journalBytes: 0 });
    const second = await metrics.registry.metrics();
    expect(second).toMatch(/^frs_audit_records_sent_total 9$/m);
    expect(second).toMatch(/^frs_audit_records_dropped_total 1$/m);
    expect(second).toMatch(/^frs_audit_journal_bytes 0$/m);
  });

  it('exports each publisher state as a 1 beside 0 for the states it is not in', async () => {
    const states: Record<string, PublisherState> = { scores: 'spilling', outcomes: 'direct' };
    const metrics = new ApiMetrics({
      capabilities: () => ({}),
      auditDepth: () => 0,
      audit: () => ({ sent: 0, raced: 0, spilled: 0, replayed: 0, dropped: 0, journalBytes: 0 }),
      publisherStates: () => states,
      explainCopiesSkipped: () => 0,
      recentScoresSkipped: () => 0,
    });
    const first = await metrics.registry.metrics();
    expect(first).toMatch(/^frs_audit_publisher_state\{publisher="scores",state="spilling"\} 1$/m);
    expect(first).toMatch(/^frs_audit_publisher_state\{publisher="scores",state="direct"\} 0$/m);
    expect(first).toMatch(/^frs_audit_publisher_state\{publisher="outcomes",state="direct"\} 1$/m);
    states.scores = 'replaying';
    const second = await metrics.registry.metrics();
    expect(second).toMatch(/^frs_audit_publisher_state\{publisher="scores",state="spilling"\} 0$/m);
    expect(second).toMatch(/^frs_audit_publisher_state\{publisher="scores",state="replaying"\} 1$/m);
  });
});
