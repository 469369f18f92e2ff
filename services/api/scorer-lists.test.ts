import { describe, expect, it } from 'vitest';
import { buildListIndex } from '../../shared/capabilities/org-lists/list-index.ts';
import { orgLists } from '../../shared/capabilities/org-lists/index.ts';
import { parseListEntry } from '../../shared/capabilities/org-lists/entry.ts';
import type { ListEntry, OrgListsLookup } from '../../shared/capabilities/org-lists/types.ts';
import type { ScoreRequest } from '../../shared/contract/request.ts';
import type { Org } from '../../shared/orgs/store.ts';
import type { LedgerLookup } from './capabilities/ledger-lookup.ts';
import type { SnapshotCache } from './capabilities/snapshot-cache.ts';
import { Scorer } from './scorer.ts';
import { calibrationSources } from '../../shared/scoring/calibration/build.ts';

const HOUR = 3_600_000;
/** An entry as the store holds it: checked and made canonical by parseListEntry, as every writer does. */
function entry(
  kind: ListEntry['kind'],
  value: string,
  effect: ListEntry['effect'],
  expiresMs?: number,
): ListEntry {
  const expires_at = expiresMs === undefined ? undefined : new Date(expiresMs).toISOString();
  // An entry past its expiry is one that was added while it was still ahead.
  const addedAt = expiresMs === undefined ? new Date() : new Date(expiresMs - HOUR);
  return {
    ...parseListEntry({ kind, value, effect, reason: 'test', expires_at }, addedAt),
    added_by: 'key:k_test',
    added_at: addedAt.toISOString(),
  };
}

/** Org A holds lists, org B none, org C's could not be loaded (org D's neither, but D had a view). */
function lookup(entries: ListEntry[]): OrgListsLookup {
  const a = buildListIndex(entries);
  const d = buildListIndex([entry('phone_prefix', '+44', 'deny')]);
  return {
    forOrg: (orgId) =>
      orgId === 'org_a'
        ? { lists: a, degraded: false }
        : orgId === 'org_c'
          ? { lists: undefined, degraded: true }
          : orgId === 'org_d'
            ? { lists: d, degraded: true }
            : { lists: undefined, degraded: false },
  };
}

/** A node holding the checked-in data (an address resolves to its AS), every capability fresh. */
const snapshots = {
  current: { data: calibrationSources().data, states: {} },
  dataStale: () => false,
  status: () => 'ok',
} as unknown as SnapshotCache;

function scoreAs(orgId: string, entries: ListEntry[], subject: ScoreRequest['subject']) {
  const records: string[] = [];
  const scorer = new Scorer({
    nodeId: 'n1',
    publish: async (_id, record) => void records.push(record),
    snapshots,
    capabilities: [],
    ledger: {} as LedgerLookup,
    lists: lookup(entries),
  });
  const org = { org_id: orgId, tier: 'assess', entitlements: [] } as unknown as Org;
  const { body } = scorer.score({ request: { subject } }, { org, keyId: 'k1' }, performance.now());
  return {
    body,
    response: JSON.parse(body) as Record<string, unknown> & { band: string },
    record: records[0]!,
  };
}

const SUBJECT = { phone_number: '+447911123456', ip_address: '81.2.69.142' };

describe('the scorer and an organisation list', () => {
  it.each([
    ['phone', '+447911123456'],
    ['phone_prefix', '+4479'],
    ['ip', '81.2.69.142'],
    ['cidr', '81.2.69.0/24'],
    ['cidr', '81.0.0.0/8'],
  ] as const)('deny by %s %s: at least high, said in context_applied without the value', (kind, value) => {
    const { response, record, body } = scoreAs('org_a', [entry(kind, value, 'deny')], SUBJECT);
    expect(response).toMatchObject({
      band: 'high',
      context_applied: { effect: 'band_elevated', reason: `organisation deny list: ${kind} entry` },
    });
    expect(response.components).toContainEqual({
      component: orgLists.key,
      verdict: 'neutral',
      contribution: 0,
      detail: 'ORG_LIST_DENY',
    });
    if (kind === 'cidr') expect(body + record).not.toContain(value);
  });

  it.each([
    ['phone', '+447911123456'],
    ['phone_prefix', '+4479111'],
    ['ip', '::ffff:81.2.69.142'],
    ['cidr', '::ffff:81.2.69.0/120'],
  ] as const)('allow by %s: a denied subject is no more than low', (kind, value) => {
    const entries = [entry('phone_prefix', '+44', 'deny'), entry('cidr', '81.0.0.0/8', 'deny')];
    const { response } = scoreAs('org_a', [...entries, entry(kind, value, 'allow')], {
      ...(kind.startsWith('phone')
        ? { phone_number: SUBJECT.phone_number }
        : { ip_address: SUBJECT.ip_address }),
    });
    expect(['minimal', 'low']).toContain(response.band);
    expect(response).toMatchObject({
      context_applied: {
        effect: 'band_reduced',
        reason: `organisation allow list: ${kind} entry`,
      },
    });
  });

  it('deny by the AS the address resolves to', () => {
    const as = (scoreAs('org_b', [], SUBJECT).response.subject as { ip_address: { asn: string } }).ip_address
      .asn;
    const { response } = scoreAs('org_a', [entry('asn', as, 'deny')], { ip_address: SUBJECT.ip_address });
    expect(response).toMatchObject({
      band: 'high',
      context_applied: { reason: 'organisation deny list: asn entry' },
    });
  });

  it('an expired entry does nothing: the next most specific live one applies', () => {
    const entries = [
      entry('phone', '+447911123456', 'deny', Date.now() - HOUR),
      entry('phone_prefix', '+44', 'deny'),
    ];
    const { response } = scoreAs('org_a', [...entries, entry('phone_prefix', '+447911', 'allow')], {
      phone_number: SUBJECT.phone_number,
    });
    expect(response).toMatchObject({
      context_applied: { reason: 'organisation allow list: phone_prefix entry' },
    });
  });

  it("applies to its organisation only: another one's answer is unchanged", () => {
    const entries = [entry('ip', '81.2.69.142', 'deny')];
    const other = scoreAs('org_b', entries, SUBJECT).response;
    const without = scoreAs('org_b', [], SUBJECT).response;
    expect(other.band).not.toBe('high');
    expect(other).not.toHaveProperty('context_applied');
    expect(JSON.stringify(other.components)).not.toContain(orgLists.key);
    for (const field of ['band', 'score', 'components', 'coverage', 'degraded_sources'])
      expect(other[field]).toEqual(without[field]);
  });

  it('the audit record keeps the code, never the entry, and fires no component', () => {
    const { record } = scoreAs('org_a', [entry('cidr', '81.2.69.0/24', 'deny')], SUBJECT);
    const parsed = JSON.parse(record) as { fired_components?: string[]; evidence: { components: unknown[] } };
    expect(parsed.fired_components ?? []).not.toContain('ORG_LIST_DENY');
    expect(parsed.evidence.components).toContainEqual(expect.objectContaining({ detail: 'ORG_LIST_DENY' }));
    expect(record).not.toContain('81.2.69.0/24');
  });

  it('names org_lists in degraded_sources when the node could not load them, never using another', () => {
    const unloaded = scoreAs('org_c', [entry('ip', '81.2.69.142', 'deny')], SUBJECT).response;
    expect(unloaded.degraded_sources).toContain(orgLists.key);
    expect(unloaded.band).not.toBe('high');
    // A node that held a view before its load failed keeps applying it, and says it is degraded.
    const stale = scoreAs('org_d', [], SUBJECT).response;
    expect(stale).toMatchObject({
      band: 'high',
      context_applied: { reason: 'organisation deny list: phone_prefix entry' },
    });
    expect(stale.degraded_sources).toContain(orgLists.key);
  });
});
