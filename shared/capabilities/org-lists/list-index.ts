/**
 * An organisation's lists as an API node looks them up on every score (loadtest/list-lookup-bench.ts
 * measures it at 100,000 entries). Numbers, addresses and ASes are exact maps. Prefixes and CIDRs
 * are ranges that nest or are apart, never overlap in part, so each is held in a sorted array with
 * a link to the narrowest range around it: a binary search finds the last range starting at or
 * before the subject, and the subject's ranges, narrowest first, are that range's own chain of
 * enclosing ones. A lookup costs the same however many prefix lengths the list uses.
 */
import ipaddr from 'ipaddr.js';
import { runInTurns, runNow, sortedInSlices, type Slices } from '../../sliced-work.ts';
import { isCanonicalIPv4 } from '../feeds/strict-address.ts';
import {
  LIST_EFFECTS,
  LIST_ENTRY_KINDS,
  type ListEntry,
  type ListEntryKind,
  type ListMatch,
  type OrgListsView,
} from './types.ts';

/** Entries indexed between two yields of a build in turns (shared/sliced-work.ts). */
const STEP = 256;

interface Slot {
  match: ListMatch;
  /** Infinity when the entry does not expire. */
  expiresMs: number;
}

/** An address as the index keys it: IPv4 as an unsigned 32-bit number, IPv6 as eight code units. */
type AddressKey = { v4: number } | { v6: string };

/** One ListMatch per effect and kind, made once: a lookup allocates none. */
const MATCHES = new Map<string, ListMatch>(
  LIST_EFFECTS.flatMap((effect) =>
    LIST_ENTRY_KINDS.map((kind) => [`${effect}:${kind}`, Object.freeze({ effect, kind })] as const),
  ),
);

/**
 * The slot of every entry of one effect and kind that never expires: shared, so the index holds
 * (and a young-generation collection during a load copies) fewer objects.
 */
const FOREVER = new Map<string, Slot>(
  [...MATCHES].map(([kindOf, match]) => [kindOf, Object.freeze({ match, expiresMs: Infinity })]),
);

function v4Number(text: string): number {
  let n = 0;
  let octet = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      n = n * 256 + octet;
      octet = 0;
    } else octet = octet * 10 + (c - 48);
  }
  return n * 256 + octet;
}

/** Only hex digits and colons (a loop: a regular expression costs more than the rest of a lookup). */
function hexAndColons(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i) | 0x20; // lower case; ':' (0x3a) is unchanged
    if (!((c >= 0x30 && c <= 0x3a) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return text.length > 0;
}

function groupsOf(text: string): number[] | undefined {
  if (text === '') return [];
  const groups = text.split(':');
  const values: number[] = [];
  for (const group of groups) {
    if (group.length === 0 || group.length > 4) return undefined;
    values.push(parseInt(group, 16));
  }
  return values;
}

/**
 * The eight groups of IPv6 text of hex groups (one `::` at most), or undefined for any other form.
 * The scorer's addresses are in this form; ipaddr.js's parse costs several microseconds.
 */
function v6Groups(text: string): number[] | undefined {
  if (!hexAndColons(text)) return undefined;
  const halves = text.split('::');
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (halves.length > 2 || head === undefined || tail === undefined) return undefined;
  const zeros = 8 - head.length - tail.length;
  if (halves.length === 1 ? zeros !== 0 : zeros < 1) return undefined;
  return [...head, ...new Array<number>(zeros).fill(0), ...tail];
}

/** IPv6 in any form ipaddr.js reads (a dotted-quad tail, a zone). */
function v6GroupsSlow(text: string): number[] | undefined {
  try {
    return ipaddr.IPv6.parse(text).parts;
  } catch {
    return undefined;
  }
}

/**
 * The key of an address literal, an IPv4-mapped IPv6 one keyed as its IPv4 (as the scorer reads
 * it). An IPv6 key is its eight groups as eight UTF-16 code units: strings compare by code unit,
 * so keys sort as the addresses do, and a comparison is one string comparison.
 */
function listAddressKey(text: string): AddressKey | undefined {
  if (isCanonicalIPv4(text)) return { v4: v4Number(text) };
  const g = v6Groups(text) ?? v6GroupsSlow(text);
  if (g === undefined) return undefined;
  const mapped = g[5] === 0xffff && g[0]! + g[1]! + g[2]! + g[3]! + g[4]! === 0;
  return mapped ? { v4: g[6]! * 0x10000 + g[7]! } : { v6: String.fromCharCode(...g) };
}

/**
 * Ranges that nest or are apart, by their first and last key (numbers, or strings of one width or
 * of digits, which compare as the keys they stand for): sorted by start, wider first, each linked
 * to the narrowest range that holds it.
 */
class NestedRanges<K extends number | string> {
  private items: { start: K; end: K; slot: Slot }[] = [];
  private starts: K[] = [];
  private ends: K[] = [];
  private slots: Slot[] = [];
  private parents = new Int32Array(0);

  add(start: K, end: K, slot: Slot): void {
    this.items.push({ start, end, slot });
  }

  *seal(): Slices<void> {
    const items = yield* sortedInSlices(this.items, (a, b) =>
      a.start < b.start ? -1 : a.start > b.start ? 1 : a.end > b.end ? -1 : a.end < b.end ? 1 : 0,
    );
    this.items = [];
    this.starts = items.map((r) => r.start);
    this.ends = items.map((r) => r.end);
    this.slots = items.map((r) => r.slot);
    this.parents = new Int32Array(items.length);
    yield;
    const open: number[] = [];
    for (let i = 0; i < items.length; i++) {
      while (open.length > 0 && this.ends[open.at(-1)!]! < items[i]!.start) open.pop();
      this.parents[i] = open.at(-1) ?? -1;
      open.push(i);
      if (i % STEP === STEP - 1) yield;
    }
  }

  /** The narrowest live range holding `key`. */
  match(key: K, nowMs: number): ListMatch | undefined {
    const starts = this.starts;
    let lo = 0;
    let hi = starts.length - 1;
    let i = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= key) {
        i = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    // Ranges around the one found that end before `key` hold it no more than it does.
    for (; i >= 0; i = this.parents[i]!) {
      if (key > this.ends[i]!) continue;
      const found = live(this.slots[i], nowMs);
      if (found) return found;
    }
    return undefined;
  }
}

/** A CIDR's first and last IPv4 numbers. */
function v4Range(n: number, bits: number): [number, number] {
  const size = 2 ** (32 - bits);
  return [n, n + size - 1];
}

/** A CIDR's first and last IPv6 keys (listAddressKey). */
function v6Range(key: string, bits: number): [string, string] {
  let end = '';
  for (let i = 0; i < 8; i++) {
    const kept = Math.min(16, Math.max(0, bits - 16 * i));
    end += String.fromCharCode(key.charCodeAt(i) | (0xffff >> kept));
  }
  return [key, end];
}

function live(slot: Slot | undefined, nowMs: number): ListMatch | undefined {
  return slot !== undefined && nowMs < slot.expiresMs ? slot.match : undefined;
}

/**
 * A number prefix as a range of numbers: every number starting with it sorts between the prefix
 * and the prefix followed by `;`, the character after the digits.
 */
const PREFIX_END = ';';

class ListIndex implements OrgListsView {
  readonly phones = new Map<string, Slot>();
  readonly prefixes = new NestedRanges<string>();
  readonly v4 = new Map<number, Slot>();
  readonly v6 = new Map<string, Slot>();
  readonly v4Cidrs = new NestedRanges<number>();
  readonly v6Cidrs = new NestedRanges<string>();
  readonly asns = new Map<number, Slot>();

  match(
    subject: { e164?: string | undefined; ip?: string | undefined; asn?: number | undefined },
    nowMs: number,
  ): ListMatch | undefined {
    const phone = subject.e164 === undefined ? undefined : this.matchPhone(subject.e164, nowMs);
    const ip =
      subject.ip === undefined && subject.asn === undefined ? undefined : this.matchNetwork(subject, nowMs);
    // Two subjects, entries of opposite effect: deny wins.
    if (phone && ip && phone.effect !== ip.effect) return phone.effect === 'deny' ? phone : ip;
    return phone ?? ip;
  }

  private matchPhone(e164: string, nowMs: number): ListMatch | undefined {
    return live(this.phones.get(e164), nowMs) ?? this.prefixes.match(e164, nowMs);
  }

  private matchNetwork(
    subject: { ip?: string | undefined; asn?: number | undefined },
    nowMs: number,
  ): ListMatch | undefined {
    const key = subject.ip === undefined ? undefined : listAddressKey(subject.ip);
    const byAddress =
      key &&
      ('v4' in key
        ? (live(this.v4.get(key.v4), nowMs) ?? this.v4Cidrs.match(key.v4, nowMs))
        : (live(this.v6.get(key.v6), nowMs) ?? this.v6Cidrs.match(key.v6, nowMs)));
    if (byAddress) return byAddress;
    return subject.asn === undefined ? undefined : live(this.asns.get(subject.asn), nowMs);
  }

  add(kind: ListEntryKind, value: string, slot: Slot): void {
    if (kind === 'phone') this.phones.set(value, slot);
    else if (kind === 'phone_prefix') this.prefixes.add(value, value + PREFIX_END, slot);
    else if (kind === 'asn') this.asns.set(Number(value.slice(2)), slot);
    else this.addAddress(value, slot);
  }

  /** An `ip` entry, or a `cidr` one (an address with its prefix length). */
  private addAddress(value: string, slot: Slot): void {
    const slash = value.indexOf('/');
    const key = listAddressKey(slash < 0 ? value : value.slice(0, slash));
    // Canonical values only reach here (parseListEntry); anything else cannot match an address.
    if (!key) return;
    const bits = slash < 0 ? undefined : Number(value.slice(slash + 1));
    if ('v4' in key) {
      if (bits === undefined) this.v4.set(key.v4, slot);
      else this.v4Cidrs.add(...v4Range(key.v4, bits), slot);
    } else if (bits === undefined) this.v6.set(key.v6, slot);
    else this.v6Cidrs.add(...v6Range(key.v6, bits), slot);
  }

  *seal(): Slices<void> {
    yield* this.prefixes.seal();
    yield* this.v4Cidrs.seal();
    yield* this.v6Cidrs.seal();
  }
}

/**
 * The index of an organisation's entries. `match` returns the most specific live entry for the
 * subject: a number before a prefix, a longer prefix before a shorter; an address before a CIDR
 * before the AS, a longer CIDR before a shorter (an `ip` entry before a /32 or /128 CIDR of the same
 * address). An expired entry is passed over, so the next most specific one applies.
 */
export function buildListIndex(entries: readonly ListEntry[]): OrgListsView {
  return runNow(indexing(entries));
}

/**
 * The same index, built in event-loop turns (an API node's load: 100,000 entries take 0.2-0.5 s,
 * which in one go would stall every score on the node).
 */
export function buildListIndexInTurns(entries: readonly ListEntry[]): Promise<OrgListsView> {
  return runInTurns(indexing(entries));
}

function* indexing(entries: readonly ListEntry[]): Slices<OrgListsView> {
  const index = new ListIndex();
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const kindOf = `${e.effect}:${e.kind}`;
    const slot =
      e.expires_at === undefined
        ? FOREVER.get(kindOf)!
        : { match: MATCHES.get(kindOf)!, expiresMs: Date.parse(e.expires_at) };
    index.add(e.kind, e.value, slot);
    if (i % STEP === STEP - 1) yield;
  }
  yield* index.seal();
  return index;
}
