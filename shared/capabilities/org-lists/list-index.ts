/**
 * An organisation's lists as an API node looks them up on every score (loadtest/list-lookup-bench.ts
 * measures it at 100,000 entries). Every entry is a key (or a range of keys) in typed arrays, so
 * a node holding large lists keeps them off the collector's marking work: no object or string per
 * entry. Numbers, addresses and ASes are sorted keys found by binary search. Prefixes and CIDRs are
 * ranges that nest or are apart, never overlap in part, so each is held sorted with a link to the
 * narrowest range around it: a binary search finds the last range starting at or before the
 * subject, and the subject's ranges, narrowest first, are that range's own chain of enclosing
 * ones. A lookup costs the same however many prefix lengths the list uses.
 *
 * Keys are numbers of one width per table: a number's digits (E.164 has at most 15, exact in a
 * double); a prefix as the range of 15-digit numbers it starts; IPv4 as an unsigned 32-bit number;
 * an AS by its number; IPv6 as three numbers of 48, 48 and 32 bits, compared in turn.
 */
import ipaddr from 'ipaddr.js';
import { runInTurns, runNow, sortedInSlices, type Slices } from '../../sliced-work.ts';
import { isCanonicalIPv4 } from '../feeds/strict-address.ts';
import {
  LIST_EFFECTS,
  LIST_ENTRY_KINDS,
  type ListEffect,
  type ListEntry,
  type ListEntryKind,
  type ListMatch,
  type OrgListsView,
} from './types.ts';

/** Entries indexed between two yields of a build in turns (shared/sliced-work.ts). */
const STEP = 256;

/** One ListMatch per effect and kind, made once: an entry keeps its index (one byte), a lookup allocates none. */
const MATCHES: readonly ListMatch[] = LIST_EFFECTS.flatMap((effect) =>
  LIST_ENTRY_KINDS.map((kind) => Object.freeze({ effect, kind })),
);
const matchIndex = (effect: ListEffect, kind: ListEntryKind) =>
  LIST_EFFECTS.indexOf(effect) * LIST_ENTRY_KINDS.length + LIST_ENTRY_KINDS.indexOf(kind);

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

/** The most digits an E.164 number has: every number and prefix key is exact in a double. */
const MAX_DIGITS = 15;
const POW10 = Array.from({ length: MAX_DIGITS + 1 }, (_, i) => 10 ** i);

/** A number's digits after `+` as a number, or -1 for anything but `+` and 1-15 digits. */
function phoneKey(e164: string): number {
  const digits = e164.length - 1;
  if (digits < 1 || digits > MAX_DIGITS || e164.charCodeAt(0) !== 43) return -1;
  let n = 0;
  for (let i = 1; i <= digits; i++) {
    const c = e164.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/** Where an address key is written: [IPv4] or IPv6's [48 bits, 48 bits, 32 bits]. */
const scratch = new Float64Array(3);

/** IPv6 groups as the three numbers of its key. */
function v6Key(g: readonly number[], into: Float64Array): void {
  into[0] = g[0]! * 2 ** 32 + g[1]! * 2 ** 16 + g[2]!;
  into[1] = g[3]! * 2 ** 32 + g[4]! * 2 ** 16 + g[5]!;
  into[2] = g[6]! * 2 ** 16 + g[7]!;
}

/**
 * The key of an address literal, written into `into`: 4 for IPv4 (an IPv4-mapped IPv6 address
 * is keyed as its IPv4, as the scorer reads it), 6 for IPv6, 0 for anything else. Also leaves the
 * IPv6 groups in `groups` (for a CIDR's end).
 */
function listAddressKey(text: string, into: Float64Array, groups?: number[]): 0 | 4 | 6 {
  if (isCanonicalIPv4(text)) {
    into[0] = v4Number(text);
    return 4;
  }
  const g = v6Groups(text) ?? v6GroupsSlow(text);
  if (g === undefined) return 0;
  if (g[5] === 0xffff && g[0]! + g[1]! + g[2]! + g[3]! + g[4]! === 0) {
    into[0] = g[6]! * 0x10000 + g[7]!;
    return 4;
  }
  v6Key(g, into);
  if (groups) groups.splice(0, 8, ...g);
  return 6;
}

/** keys[i] (of `width` numbers) against `key`. */
function compareAt(keys: Float64Array, i: number, key: ArrayLike<number>, width: number): number {
  for (let k = 0; k < width; k++) {
    const a = keys[i * width + k]!;
    const b = key[k]!;
    if (a !== b) return a < b ? -1 : 1;
  }
  return 0;
}

/** a[i] against b[j], keys of `width` numbers each. */
function compareEntries(a: Float64Array, i: number, b: Float64Array, j: number, width: number): number {
  for (let k = 0; k < width; k++) {
    const x = a[i * width + k]!;
    const y = b[j * width + k]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** The last index whose key is at or before `key`, or -1. */
function lastAtOrBefore(keys: Float64Array, width: number, key: ArrayLike<number>): number {
  if (width === 1) return lastAtOrBeforeNumber(keys, key[0]!);
  let lo = 0;
  let hi = keys.length / width - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (compareAt(keys, mid, key, width) <= 0) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** lastAtOrBefore for keys of one number: most tables, and the hot path of every lookup. */
function lastAtOrBeforeNumber(keys: Float64Array, key: number): number {
  let lo = 0;
  let hi = keys.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid]! <= key) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * Exact keys, or ranges that nest or are apart: sorted by start, wider first, each linked to the
 * narrowest range that holds it. An exact key is a range of one key.
 */
class KeyTable {
  // While the index is built: one plain array per field, no object per entry.
  private pending = {
    starts: [] as number[],
    ends: [] as number[],
    matches: [] as number[],
    expires: [] as number[],
    minDigits: [] as number[],
  };
  private starts = new Float64Array(0);
  private ends = new Float64Array(0);
  private matches = new Uint8Array(0);
  private expires = new Float64Array(0);
  private minDigits = new Uint8Array(0);
  private parents = new Int32Array(0);
  private readonly width: number;
  private readonly ranges: boolean;

  constructor(width: number, ranges: boolean) {
    this.width = width;
    this.ranges = ranges;
  }

  /** `start` and `end` of `width` numbers each (`end` is ignored for exact keys). */
  add(
    start: ArrayLike<number>,
    end: ArrayLike<number>,
    match: number,
    expiresMs: number,
    minDigits = 0,
  ): void {
    const p = this.pending;
    for (let k = 0; k < this.width; k++) {
      p.starts.push(start[k]!);
      if (this.ranges) p.ends.push(end[k]!);
    }
    p.matches.push(match);
    p.expires.push(expiresMs);
    p.minDigits.push(minDigits);
  }

  *seal(): Slices<void> {
    const { width, ranges } = this;
    const p = this.pending;
    this.pending = { starts: [], ends: [], matches: [], expires: [], minDigits: [] };
    const starts = Float64Array.from(p.starts);
    const ends = ranges ? Float64Array.from(p.ends) : starts;
    const n = p.matches.length;
    // By start, wider first; stable, so of two equal exact keys the later one sorts last.
    const order = yield* sortedInSlices(
      Array.from({ length: n }, (_, i) => i),
      (a, b) => compareEntries(starts, a, starts, b, width) || compareEntries(ends, b, ends, a, width),
    );
    this.starts = new Float64Array(n * width);
    this.ends = ranges ? new Float64Array(n * width) : this.starts;
    this.matches = new Uint8Array(n);
    this.expires = new Float64Array(n);
    this.minDigits = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const j = order[i]!;
      this.starts.set(starts.subarray(j * width, j * width + width), i * width);
      if (ranges) this.ends.set(ends.subarray(j * width, j * width + width), i * width);
      this.matches[i] = p.matches[j]!;
      this.expires[i] = p.expires[j]!;
      this.minDigits[i] = p.minDigits[j]!;
      if (i % STEP === STEP - 1) yield;
    }
    this.parents = new Int32Array(n).fill(-1);
    if (!ranges) return;
    const open: number[] = [];
    for (let i = 0; i < n; i++) {
      while (open.length > 0 && compareEntries(this.ends, open.at(-1)!, this.starts, i, width) < 0)
        open.pop();
      this.parents[i] = open.at(-1) ?? -1;
      open.push(i);
      if (i % STEP === STEP - 1) yield;
    }
  }

  /**
   * The narrowest live entry holding `key` (of a number of `digits` digits, for prefixes). Of two
   * equal exact keys the one added last, as a Map would keep it.
   */
  match(key: ArrayLike<number>, nowMs: number, digits = MAX_DIGITS): ListMatch | undefined {
    let i = lastAtOrBefore(this.starts, this.width, key);
    if (!this.ranges)
      return i >= 0 && compareAt(this.starts, i, key, this.width) === 0 ? this.live(i, nowMs) : undefined;
    // Ranges around the one found that end before `key` hold it no more than it does.
    for (; i >= 0; i = this.parents[i]!) {
      if (compareAt(this.ends, i, key, this.width) < 0 || this.minDigits[i]! > digits) continue;
      const found = this.live(i, nowMs);
      if (found) return found;
    }
    return undefined;
  }

  private live(i: number, nowMs: number): ListMatch | undefined {
    return nowMs < this.expires[i]! ? MATCHES[this.matches[i]!] : undefined;
  }
}

/** A CIDR's first and last IPv6 groups as keys. */
function v6Range(groups: readonly number[], bits: number): [number[], number[]] {
  const first = new Float64Array(3);
  const last = new Float64Array(3);
  const end = groups.map((g, i) => g | (0xffff >> Math.min(16, Math.max(0, bits - 16 * i))));
  v6Key(groups, first);
  v6Key(end, last);
  return [[...first], [...last]];
}

class ListIndex implements OrgListsView {
  private readonly phones = new KeyTable(1, false);
  private readonly prefixes = new KeyTable(1, true);
  private readonly v4 = new KeyTable(1, false);
  private readonly v6 = new KeyTable(3, false);
  private readonly v4Cidrs = new KeyTable(1, true);
  private readonly v6Cidrs = new KeyTable(3, true);
  private readonly asns = new KeyTable(1, false);
  private readonly one = new Float64Array(1);

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
    const n = phoneKey(e164);
    if (n < 0) return undefined;
    const digits = e164.length - 1;
    this.one[0] = n;
    const exact = this.phones.match(this.one, nowMs);
    if (exact) return exact;
    this.one[0] = n * POW10[MAX_DIGITS - digits]!;
    return this.prefixes.match(this.one, nowMs, digits);
  }

  private matchNetwork(
    subject: { ip?: string | undefined; asn?: number | undefined },
    nowMs: number,
  ): ListMatch | undefined {
    const family = subject.ip === undefined ? 0 : listAddressKey(subject.ip, scratch);
    const byAddress =
      family === 4
        ? (this.v4.match(scratch, nowMs) ?? this.v4Cidrs.match(scratch, nowMs))
        : family === 6
          ? (this.v6.match(scratch, nowMs) ?? this.v6Cidrs.match(scratch, nowMs))
          : undefined;
    if (byAddress) return byAddress;
    if (subject.asn === undefined) return undefined;
    this.one[0] = subject.asn;
    return this.asns.match(this.one, nowMs);
  }

  add(kind: ListEntryKind, value: string, match: number, expiresMs: number): void {
    if (kind === 'phone') {
      const n = phoneKey(value);
      if (n >= 0) this.phones.add([n], [n], match, expiresMs);
    } else if (kind === 'phone_prefix') {
      const n = phoneKey(value);
      const digits = value.length - 1;
      const width = POW10[MAX_DIGITS - digits]!;
      if (n >= 0) this.prefixes.add([n * width], [n * width + width - 1], match, expiresMs, digits);
    } else if (kind === 'asn') this.asns.add([Number(value.slice(2))], [], match, expiresMs);
    else this.addAddress(value, match, expiresMs);
  }

  /** An `ip` entry, or a `cidr` one (an address with its prefix length). */
  private addAddress(value: string, match: number, expiresMs: number): void {
    const slash = value.indexOf('/');
    const key = new Float64Array(3);
    const groups: number[] = [];
    const family = listAddressKey(slash < 0 ? value : value.slice(0, slash), key, groups);
    // Canonical values only reach here (parseListEntry); anything else cannot match an address.
    if (family === 0) return;
    const bits = slash < 0 ? undefined : Number(value.slice(slash + 1));
    if (family === 4) {
      const n = key[0]!;
      if (bits === undefined) this.v4.add([n], [], match, expiresMs);
      else this.v4Cidrs.add([n], [n + 2 ** (32 - bits) - 1], match, expiresMs);
    } else if (bits === undefined) this.v6.add([...key], [], match, expiresMs);
    else this.v6Cidrs.add(...v6Range(groups, bits), match, expiresMs);
  }

  *seal(): Slices<void> {
    for (const table of [this.phones, this.prefixes, this.v4, this.v6, this.v4Cidrs, this.v6Cidrs, this.asns])
      yield* table.seal();
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
    const expiresMs = e.expires_at === undefined ? Infinity : Date.parse(e.expires_at);
    index.add(e.kind, e.value, matchIndex(e.effect, e.kind), expiresMs);
    if (i % STEP === STEP - 1) yield;
  }
  yield* index.seal();
  return index;
}
