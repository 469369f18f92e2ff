/**
 * Micro-benchmark of an organisation's list lookup (shared/capabilities/org-lists/list-index.ts):
 * the time to build the index of 100,000 mixed entries, and the cost of one `match` for subjects
 * that hit an entry and subjects that miss every one.
 *
 *   node --expose-gc loadtest/list-lookup-bench.ts [lookups-per-round] [rounds]
 *
 * The entries spread over every kind and over many prefix and CIDR lengths (each length present is
 * a probe for every miss), so a miss pays the most a list of this size can cost. Each round times
 * a batch of lookups over inputs generated beforehand; the figure is the median round's time per
 * lookup, in microseconds.
 */
import { buildListIndex } from '../shared/capabilities/org-lists/list-index.ts';
import {
  LIST_ENTRY_KINDS,
  MAX_LIST_ENTRIES,
  type ListEntry,
  type OrgListsView,
} from '../shared/capabilities/org-lists/types.ts';

const perRound = Number(process.argv[2] ?? 200_000);
const rounds = Number(process.argv[3] ?? 7);
const NOW = Date.now();
const digits = (n: number, width: number) => String(n).padStart(width, '0');
const v4 = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
const hex = (n: number) => (n & 0xffff).toString(16);

/** Entry `i` of 100,000: a fifth of each kind, a tenth of them expiring, half allow and half deny. */
function entryAt(i: number): ListEntry {
  const kind = LIST_ENTRY_KINDS[i % 5]!;
  const n = Math.floor(i / 5);
  const value = {
    phone: `+4477${digits(n, 8)}`,
    // Prefixes of 2 to 14 digits: 13 lengths to probe.
    phone_prefix: `+1${digits(n, 1 + (n % 13)).slice(0, 1 + (n % 13))}`,
    ip: n % 2 ? v4(0x0a000000 + n) : `2001:db8::${hex(n)}:${hex(n >> 16)}`,
    // IPv4 /8 to /32 and IPv6 /32 to /128, at the network address of each.
    cidr:
      n % 2
        ? `${v4((0xc0000000 + n * 4096) & ((~0 << (32 - (8 + (n % 25)))) >>> 0))}/${8 + (n % 25)}`
        : `2001:db8:${hex(n)}::/${48 + (n % 81)}`,
    asn: `AS${64512 + n}`,
  }[kind];
  return {
    kind,
    value,
    effect: i % 2 ? 'allow' : 'deny',
    reason: 'bench',
    ...(i % 10 === 0 ? { expires_at: new Date(NOW + 86_400_000).toISOString() } : {}),
    added_by: 'operator:bench',
    added_at: new Date(NOW).toISOString(),
  };
}

type Subject = { e164?: string; ip?: string; asn?: number };
const pick = <T>(f: (k: number) => T) => Array.from({ length: 4096 }, (_, k) => f(k));

const SUBJECTS: Record<string, Subject[]> = {
  'phone hit (number)': pick((k) => ({ e164: `+4477${digits(k * 3, 8)}` })),
  'phone hit (prefix)': pick((k) => ({ e164: `+1${digits(k, 1)}${digits(k, 9)}` })),
  'phone miss': pick((k) => ({ e164: `+3361${digits(k, 7)}` })),
  'IPv4 hit (address)': pick((k) => ({ ip: v4(0x0a000000 + k * 2 + 1), asn: 1 })),
  'IPv4 hit (CIDR)': pick((k) => ({ ip: v4(0xc0000000 + (k * 2 + 1) * 4096), asn: 1 })),
  'IPv4 hit (AS)': pick((k) => ({ ip: v4(0x64000000 + k), asn: 64512 + k })),
  'IPv4 miss': pick((k) => ({ ip: v4(0x64000000 + k), asn: 1 })),
  'IPv6 hit (CIDR)': pick((k) => ({ ip: `2001:db8:${hex(k * 2)}::1`, asn: 1 })),
  'IPv6 miss': pick((k) => ({ ip: `2001:db9::${hex(k)}`, asn: 1 })),
  'number + IPv4, both miss': pick((k) => ({ e164: `+3361${digits(k, 7)}`, ip: v4(0x64000000 + k), asn: 1 })),
};

function round(lists: OrgListsView, subjects: Subject[]): { us: number; hits: number } {
  let hits = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < perRound; i++) if (lists.match(subjects[i & 4095]!, NOW)) hits++;
  const ns = Number(process.hrtime.bigint() - start);
  return { us: ns / 1000 / perRound, hits };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// What the index keeps, not what building it allocated: with --expose-gc (as the usage line runs
// it) the heap and ArrayBuffers are read after a full collection, the entries themselves dropped.
const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const retained = () => {
  collect();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, buffers: m.arrayBuffers };
};
const base = retained();
/** The index, built from entries that are garbage once it returns. */
function built(): { lists: OrgListsView; count: number; buildMs: number } {
  const entries = Array.from({ length: MAX_LIST_ENTRIES }, (_, i) => entryAt(i));
  const start = performance.now();
  const lists = buildListIndex(entries);
  return { lists, count: entries.length, buildMs: performance.now() - start };
}
const { lists, count, buildMs } = built();
const kept = retained();
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
console.log(
  `${count} entries: index built in ${buildMs.toFixed(0)} ms; it keeps ${mib(kept.heap - base.heap)} MiB of heap ` +
    `and ${mib(kept.buffers - base.buffers)} MiB of ArrayBuffers` +
    ((globalThis as { gc?: unknown }).gc ? '' : ' (without --expose-gc: garbage included)'),
);
console.log(`${rounds} rounds of ${perRound} lookups each; median µs per lookup:`);
for (const [name, subjects] of Object.entries(SUBJECTS)) {
  round(lists, subjects); // warm-up
  const results = Array.from({ length: rounds }, () => round(lists, subjects));
  const hitRate = results[0]!.hits / perRound;
  console.log(
    `  ${name.padEnd(26)} ${median(results.map((r) => r.us)).toFixed(3)} µs  (matched ${(hitRate * 100).toFixed(0)} %)`,
  );
}
