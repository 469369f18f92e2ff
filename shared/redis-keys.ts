/**
 * The Redis keys that are meant to live without an expiry, and why each is bounded anyway. Every
 * other key any service writes expires (test/integration/redis-key-expiry.test.ts fails on one
 * that does not). docs/security.md lists the same.
 */
export const PERMANENT_KEYS: readonly { pattern: RegExp; what: string; bound: string }[] = [
  { pattern: /^frs:org:org_[0-9a-f]+$/, what: 'an organisation', bound: 'one per organisation' },
  {
    pattern: /^frs:org:org_[0-9a-f]+:keys(:active|:used)?$/,
    what: "an organisation's key ids, its active keys, their last-used times",
    bound: 'one entry per key; at most 100 active keys per organisation',
  },
  {
    pattern: /^frs:apikey:[0-9a-f]{64}$/,
    what: "an API key's digest -> its organisation",
    bound: 'one per key',
  },
  { pattern: /^frs:keyid:key_[0-9a-f]+$/, what: 'an API key by its id', bound: 'one per key' },
  {
    pattern: /^frs:apikey:(index|indexed)$/,
    what: "every key's digest -> its id (the API nodes' key replica), and whether it is complete",
    bound: 'one entry per key not revoked',
  },
  { pattern: /^frs:versions$/, what: 'score-version state (default, challenger, retired)', bound: 'one' },
  {
    pattern: /^frs:cap:(current|status):\{[a-z_]+\}(:sources)?$/,
    what: "the current snapshot of each capability, its refresh status, and its sources' validators (ETag, Last-Modified)",
    bound: 'three per capability; the validators one entry per source location',
  },
  {
    pattern: /^frs:cap:(blob:\{[a-z_]+\}|ledger):[0-9]+-[0-9a-f]{8}$/,
    what: "capability snapshots and the consortium feed's hash: the current and the previous version",
    bound: 'two versions per capability, replaced by each refresh',
  },
  {
    pattern: /^frs:cap:correction:\{corrections\}(:version|:log)?$/,
    what: 'operator corrections (the live set, its version counter, its append-only record)',
    bound: 'at most 1,000 corrections; the record grows by one entry per operator command',
  },
  {
    pattern: /^frs:list:\{org_[0-9a-f]+\}(:version|:outbox)?$/,
    what: "an organisation's allow/deny list entries, their version counter, their audit outbox",
    bound:
      'at most 100,000 entries per organisation; the outbox is emptied by the audit sink once ClickHouse holds it',
  },
  {
    pattern: /^frs:lists:orgs$/,
    what: 'the organisations that hold lists (what nodes and the audit sink read instead of a SCAN)',
    bound: 'one entry per organisation',
  },
  {
    pattern: /^frs:portal:(user:usr_[0-9a-f]+|email:.+)$/,
    what: 'a portal user and its email index',
    bound: 'one per user the operators create',
  },
  {
    pattern: /^(frs|\{frs\}):refresher:/,
    what: "the refresher's BullMQ queue (its metadata, schedulers and retained jobs)",
    bound: 'BullMQ keeps the last jobs only (removeOnComplete/removeOnFail)',
  },
];

/** Whether a key is one that may live without an expiry. */
export function permanentKey(key: string): boolean {
  return PERMANENT_KEYS.some((k) => k.pattern.test(key));
}
