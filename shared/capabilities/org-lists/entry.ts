/**
 * One list entry as a caller writes it (API, portal, CSV, admin CLI), checked and put in the
 * canonical form the node's index matches on. Every writer goes through parseListEntry, so an
 * entry that is stored is one the scorer can match.
 */
import { CorrectionError, parseAsnTarget, parseCidrTarget, type CidrRules } from '../corrections.ts';
import { LIST_EFFECTS, LIST_ENTRY_KINDS, type ListEntryInput, type ListEntryKind } from './types.ts';

export const MAX_LIST_REASON = 200;

/** A bad entry; the message names the field and what is wrong with it, never more of the entry. */
export class ListEntryError extends Error {}

/** An entry's identity: adding the same kind and value again replaces it. */
export function listEntryId(e: { kind: ListEntryKind; value: string }): string {
  return `${e.kind}:${e.value}`;
}

/** The number a score request may send (PHONE_PATTERN, shared/contract/request.ts, a layer above). */
const PHONE = /^\+[1-9]\d{3,14}$/;
/** `+` and 1 to 14 digits: any leading part of an E.164 number, never the whole 15-digit one. */
const PHONE_PREFIX = /^\+[1-9]\d{0,13}$/;
/**
 * Lists name ranges of any width (a whole /8 or a single /32 address): unlike an operator
 * correction, a list only touches the organisation that wrote it.
 */
const LIST_CIDR: CidrRules = { minPrefix: { ipv4: 0, ipv6: 0 }, label: 'value' };
const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(?:Z|([+-])(\d{2}):(\d{2}))$/;

function fail(message: string): never {
  throw new ListEntryError(message);
}

function text(input: Record<string, unknown>, field: string): string {
  const value = input[field];
  if (typeof value !== 'string') fail(`${field}: required, a string`);
  return value.trim();
}

function oneOf<T extends string>(value: string, field: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) fail(`${field}: must be one of ${allowed.join(', ')}`);
  return value as T;
}

/** CIDR rules, refusals reworded for a list entry (CorrectionError is the corrections' own). */
function viaCorrections(parse: () => string, otherwise?: string): string {
  try {
    return parse();
  } catch (err) {
    if (err instanceof CorrectionError) fail(otherwise ?? err.message);
    throw err;
  }
}

/** An address as the scorer reads it (an IPv4-mapped IPv6 address is its IPv4): a full-width CIDR. */
function canonicalIp(value: string): string {
  if (value.includes('/')) fail('value: an address, without a prefix length (use kind cidr for a range)');
  const width = value.includes(':') ? 128 : 32;
  const cidr = viaCorrections(() => parseCidrTarget(`${value}/${width}`, LIST_CIDR));
  return cidr.slice(0, cidr.lastIndexOf('/'));
}

function canonicalValue(kind: ListEntryKind, value: string): string {
  switch (kind) {
    case 'phone':
      return PHONE.test(value) ? value : fail('value: not an E.164 number (+ then 4 to 15 digits)');
    case 'phone_prefix':
      return PHONE_PREFIX.test(value) ? value : fail('value: not a number prefix (+ then 1 to 14 digits)');
    case 'ip':
      return canonicalIp(value);
    case 'cidr':
      return viaCorrections(() => parseCidrTarget(value, LIST_CIDR));
    case 'asn':
      return viaCorrections(() => parseAsnTarget(value), 'value: not an AS number (AS64500)');
  }
}

function checkedReason(reason: string): string {
  if (reason.length === 0) fail('reason: required');
  if ([...reason].length > MAX_LIST_REASON) fail(`reason: at most ${MAX_LIST_REASON} characters`);
  // The storable-text rules of identifiers (shared/contract/storable-text.ts, a layer above): the
  // reason is stored in Redis and ClickHouse and shown in the portal and the CLI.
  if (!reason.isWellFormed()) fail('reason: must be well-formed Unicode');
  if (UNSTORABLE.test(reason))
    fail('reason: must not contain control, bidirectional control or noncharacters');
  return reason;
}

const UNSTORABLE = /[\p{Cc}\p{Noncharacter_Code_Point}\u202a-\u202e\u2066-\u2069]/u;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/**
 * An ISO 8601 time with its offset as UTC (`2027-01-31T00:00:00.000Z`) and its instant, or
 * undefined. The day is checked here because Date.parse rolls 2027-02-30 over to March (a date
 * that does not exist is a typo); a UTC time is written from its own fields because toISOString
 * costs a CSV of 100,000 lines a third of a second.
 */
function isoTime(text: string): { ms: number; utc: string } | undefined {
  const m = ISO_TIME.exec(text);
  const ms = m ? Date.parse(text) : NaN;
  // Date.parse takes 24:00 as the next day's midnight; ISO 8601-1:2019 no longer does.
  if (!m || Number.isNaN(ms) || m[4] === '24' || Number(m[3]) > daysIn(Number(m[1]), Number(m[2])))
    return undefined;
  const zulu = m[8] === undefined || (m[9] === '00' && m[10] === '00');
  const fraction = (m[7] ?? '.000').padEnd(4, '0').slice(0, 4);
  const utc = zulu
    ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${fraction}Z`
    : new Date(ms).toISOString();
  return { ms, utc };
}

/** A future time in ISO 8601 with its offset, as UTC. */
function checkedExpiry(value: unknown, now: Date): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const time = typeof value === 'string' ? isoTime(value.trim()) : undefined;
  if (!time) fail('expires_at: an ISO 8601 time with its offset (2027-01-31T00:00:00Z)');
  if (time.ms <= now.getTime()) fail('expires_at: must be in the future');
  return time.utc;
}

/** Checks one entry and returns it in canonical form; throws ListEntryError naming the bad field. */
export function parseListEntry(input: unknown, now: Date): ListEntryInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) fail('entry: must be an object');
  const fields = input as Record<string, unknown>;
  const kind = oneOf(text(fields, 'kind'), 'kind', LIST_ENTRY_KINDS);
  const effect = oneOf(text(fields, 'effect'), 'effect', LIST_EFFECTS);
  const value = canonicalValue(kind, text(fields, 'value'));
  const reason = checkedReason(text(fields, 'reason'));
  const expires_at = checkedExpiry(fields.expires_at, now);
  return { kind, value, effect, reason, ...(expires_at ? { expires_at } : {}) };
}
