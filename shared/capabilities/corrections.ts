/**
 * Operator corrections: a deployment's own word on an address's flags (hosting, VPN, proxy, Tor)
 * by CIDR or by origin AS, applied after every capability's list (shared/scoring/evidence.ts).
 * They live beside the snapshots, never inside one, so a feed refresh cannot drop them, and no
 * feed or endpoint exports them: a caller only sees, in a component's detail, that a flag was
 * corrected (IP_OPERATOR_CORRECTED), never the range, the reason or who made it.
 *
 *   {prefix}:correction:{corrections}          hash: `<target>|<flag>` -> JSON Correction (live set)
 *   {prefix}:correction:{corrections}:version  counter, raised by every change
 *   {prefix}:correction:{corrections}:log      stream: every add and remove, who, when, why
 *
 * The log is a Redis stream rather than a ClickHouse table: the live change and its record are
 * written in one MULTI on one server (one hash tag), so neither exists without the other, and
 * changing a correction does not depend on ClickHouse being up. It is append-only and untrimmed;
 * it grows at the pace of operators typing commands.
 *
 * Nodes follow the version counter on the snapshot cache's poll and on the snapshot announcement
 * channel (message `corrections`), so a change reaches every node within one poll.
 */
import ipaddr from 'ipaddr.js';
import type { RedisClient } from '../clients/redis.ts';
import type { IpFacts } from '../resolution/ip.ts';

export const CORRECTED_FLAGS = ['hosting', 'vpn', 'proxy', 'tor'] as const;
export type CorrectedFlag = (typeof CORRECTED_FLAGS)[number];

export const CORRECTION_KINDS = [
  'not_hosting',
  'not_vpn',
  'not_proxy',
  'not_tor',
  'hosting',
  'vpn',
  'proxy',
  'tor',
] as const;
export type CorrectionKind = (typeof CORRECTION_KINDS)[number];

/** At most this many corrections at once: a node scans them for every address it scores. */
export const MAX_CORRECTIONS = 1000;
/**
 * The widest CIDR a correction may name. Wider is a whole network's business: correct its AS.
 * A /16 of IPv4 and a /32 of IPv6 are a large operator's allocation.
 */
export const MIN_PREFIX = { ipv4: 16, ipv6: 32 } as const;
export const MAX_REASON = 512;
export const MAX_OPERATOR = 128;

export interface Correction {
  /** `AS<number>` or a canonical CIDR (network address, shortest form). */
  target: string;
  flag: CorrectedFlag;
  /** The flag's value after the correction. */
  value: boolean;
  reason: string;
  operator: string;
  at: string;
}

/** The clean code of a component whose flag an operator corrected away (Tor, VPN/proxy, hosting). */
export const IP_OPERATOR_CORRECTED = {
  IP_OPERATOR_CORRECTED:
    'An operator correction of this deployment overrides the lists: the address is not what they say for this component.',
} as const;

/** Whether an operator corrected one of `flags` and left all of them false. */
export function correctedAway(ip: IpFacts, ...flags: CorrectedFlag[]): boolean {
  return flags.some((f) => ip.corrected?.includes(f)) && flags.every((f) => !ip[f]);
}

export class CorrectionError extends Error {}

export function kindOf(flag: CorrectedFlag, value: boolean): CorrectionKind {
  return value ? flag : (`not_${flag}` as CorrectionKind);
}

function parseKind(kind: string): { flag: CorrectedFlag; value: boolean } {
  if (!(CORRECTION_KINDS as readonly string[]).includes(kind))
    throw new CorrectionError(`correction must be one of ${CORRECTION_KINDS.join(', ')}`);
  const value = !kind.startsWith('not_');
  return { flag: (value ? kind : kind.slice(4)) as CorrectedFlag, value };
}

/** `AS64500` or `64500`, 1 to 4294967295, in canonical form. */
export function parseAsnTarget(text: string): string {
  const m = /^(?:AS)?([1-9][0-9]{0,9})$/i.exec(text.trim());
  const n = m ? Number(m[1]) : NaN;
  if (!(n >= 1 && n <= 0xffffffff))
    throw new CorrectionError(`--asn ${JSON.stringify(text)}: not an AS number`);
  return `AS${n}`;
}

/**
 * A CIDR in its canonical form, refusing anything loosely written (`10.1`, `010.0.0.0`, a
 * decimal address), host bits set, or a prefix wider than MIN_PREFIX.
 */
export function parseCidrTarget(text: string): string {
  const what = `--cidr ${JSON.stringify(text)}`;
  const [addr, bits, ...rest] = text.trim().split('/');
  if (addr === undefined || bits === undefined || rest.length > 0 || !/^[0-9]{1,3}$/.test(bits))
    throw new CorrectionError(`${what}: not address/prefix-length`);
  const v4 = ipaddr.IPv4.isValidFourPartDecimal(addr);
  // Four decimal parts without leading zeros (no octal, no short or integer forms), or IPv6.
  if (!v4 && !(addr.includes(':') && ipaddr.IPv6.isValid(addr)))
    throw new CorrectionError(`${what}: not an IPv4 or IPv6 address`);
  const parsed = ipaddr.parse(addr);
  const kind = parsed.kind();
  const length = Number(bits);
  const max = kind === 'ipv4' ? 32 : 128;
  if (length > max) throw new CorrectionError(`${what}: prefix length above ${max}`);
  if (length < MIN_PREFIX[kind])
    throw new CorrectionError(`${what}: wider than /${MIN_PREFIX[kind]}; correct the network's AS instead`);
  const network =
    kind === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${addr}/${length}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${addr}/${length}`);
  if (network.toString() !== parsed.toString())
    throw new CorrectionError(`${what}: host bits set; the network is ${network.toString()}/${length}`);
  return `${network.toString()}/${length}`;
}

function checkedText(value: string, flag: string, max: number): string {
  const text = value.trim();
  if (text.length === 0) throw new CorrectionError(`--${flag} is required`);
  if (text.length > max) throw new CorrectionError(`--${flag}: at most ${max} characters`);
  if (/\p{Cc}/u.test(text)) throw new CorrectionError(`--${flag}: no control characters`);
  return text;
}

export interface CorrectionInput {
  cidr?: string;
  asn?: string;
  kind: string;
  reason: string;
  operator: string;
}

/** Validates an operator's correction; throws CorrectionError saying what is wrong. */
export function parseCorrection(input: CorrectionInput, now = new Date()): Correction {
  if ((input.cidr === undefined) === (input.asn === undefined))
    throw new CorrectionError('name exactly one of --cidr and --asn');
  const target = input.cidr !== undefined ? parseCidrTarget(input.cidr) : parseAsnTarget(input.asn!);
  return {
    target,
    ...parseKind(input.kind),
    reason: checkedText(input.reason, 'reason', MAX_REASON),
    operator: checkedText(input.operator, 'operator', MAX_OPERATOR),
    at: now.toISOString(),
  };
}

const field = (c: Pick<Correction, 'target' | 'flag'>) => `${c.target}|${c.flag}`;

/** The corrections in Redis: the admin CLI writes them, API nodes read them. */
export class CorrectionStore {
  private readonly redis: RedisClient;
  readonly key: string;
  readonly versionKey: string;
  readonly logKey: string;
  /** The snapshot announcement channel, which nodes already follow. */
  readonly channel: string;

  constructor(redis: RedisClient, prefix: string) {
    this.redis = redis;
    this.key = `${prefix}:correction:{corrections}`;
    this.versionKey = `${this.key}:version`;
    this.logKey = `${this.key}:log`;
    this.channel = `${prefix}:announce`;
  }

  /**
   * Adds (or replaces: one correction per target and flag) a correction, records it, announces
   * it. Refused past MAX_CORRECTIONS.
   */
  async add(c: Correction): Promise<Correction> {
    const replaces = await this.redis.hget(this.key, field(c));
    if (replaces === null && (await this.redis.hlen(this.key)) >= MAX_CORRECTIONS)
      throw new CorrectionError(`at most ${MAX_CORRECTIONS} corrections; remove one first`);
    await this.change('add', c, (m) => m.hset(this.key, field(c), JSON.stringify(c)));
    return c;
  }

  /**
   * Removes the correction `c` names (its target, flag and value), recording `c`'s reason, operator
   * and time; throws when there is no such correction.
   */
  async remove(c: Correction): Promise<Correction> {
    const raw = await this.redis.hget(this.key, field(c));
    const held = raw === null ? undefined : (JSON.parse(raw) as Correction);
    if (held?.value !== c.value)
      throw new CorrectionError(`no ${kindOf(c.flag, c.value)} correction on ${c.target}`);
    const removed = { ...held, reason: c.reason, operator: c.operator, at: c.at };
    await this.change('remove', removed, (m) => m.hdel(this.key, field(removed)));
    return removed;
  }

  private async change(
    action: 'add' | 'remove',
    c: Correction,
    write: (m: ReturnType<RedisClient['multi']>) => void,
  ): Promise<void> {
    const m = this.redis.multi();
    write(m);
    m.xadd(
      this.logKey,
      '*',
      'action',
      action,
      'target',
      c.target,
      'correction',
      kindOf(c.flag, c.value),
      'reason',
      c.reason,
      'operator',
      c.operator,
      'at',
      c.at,
    );
    m.incr(this.versionKey);
    m.publish(this.channel, 'corrections');
    const results = await m.exec();
    const failed = results?.find(([err]) => err);
    if (!results || failed) throw failed?.[0] ?? new Error('correction not written');
  }

  async version(): Promise<string | null> {
    return this.redis.get(this.versionKey);
  }

  async list(): Promise<Correction[]> {
    const all = await this.redis.hgetall(this.key);
    return Object.values(all)
      .map((v) => JSON.parse(v) as Correction)
      .sort((a, b) => a.target.localeCompare(b.target) || a.flag.localeCompare(b.flag));
  }

  /** The latest `count` entries of the record, newest first. */
  async history(count = 100): Promise<Record<string, string>[]> {
    const rows = await this.redis.xrevrange(this.logKey, '+', '-', 'COUNT', count);
    return rows.map(([id, kv]) => {
      const entry: Record<string, string> = { id };
      for (let i = 0; i + 1 < kv.length; i += 2) entry[kv[i]!] = kv[i + 1]!;
      return entry;
    });
  }
}

type Flags = Partial<Record<CorrectedFlag, boolean>>;

/** The corrections as a node applies them: by AS, and by range from the widest to the narrowest. */
export interface Corrections {
  version: string;
  byAsn: ReadonlyMap<string, Flags>;
  /** IPv4 ranges as numeric bounds (a scan of 1,000 is a few microseconds; ipaddr.js's match is ~40). */
  v4: readonly { lo: number; hi: number; flags: Flags }[];
  v6: readonly { range: [ipaddr.IPv6, number]; flags: Flags }[];
}

export function compileCorrections(version: string, list: readonly Correction[]): Corrections {
  const byAsn = new Map<string, Flags>();
  const byCidr = new Map<string, Flags>();
  for (const c of list) {
    const into = c.target.startsWith('AS') ? byAsn : byCidr;
    into.set(c.target, { ...into.get(c.target), [c.flag]: c.value });
  }
  const ranges = [...byCidr]
    .map(([cidr, flags]) => ({ range: ipaddr.parseCIDR(cidr), flags }))
    .sort((a, b) => a.range[1] - b.range[1]);
  const v4 = ranges
    .filter((r) => r.range[0].kind() === 'ipv4')
    .map(({ range: [addr, bits], flags }) => {
      const lo = (addr as ipaddr.IPv4).octets.reduce((n, o) => n * 256 + o, 0);
      return { lo, hi: lo + 2 ** (32 - bits) - 1, flags };
    });
  const v6 = ranges
    .filter((r) => r.range[0].kind() === 'ipv6')
    .map(({ range, flags }) => ({ range: range as [ipaddr.IPv6, number], flags }));
  return { version, byAsn, v4, v6 };
}

/**
 * The address's facts with the corrections that name it, after every list: its AS's, then its
 * ranges' from the widest to the narrowest, so the most specific says last. `as_type` follows a
 * corrected `hosting` (the two always agree); `corrected` names the flags an operator set.
 */
export function applyCorrections(ip: IpFacts, corrections: Corrections | undefined): IpFacts {
  if (!corrections || (corrections.byAsn.size === 0 && corrections.v4.length + corrections.v6.length === 0))
    return ip;
  if (ip.range !== 'unicast' && ip.range !== 'unallocated') return ip;
  let flags: Flags = ip.asn !== undefined ? { ...corrections.byAsn.get(ip.asn) } : {};
  if (ip.version === 4 && corrections.v4.length > 0) {
    const key = ip.address.split('.').reduce((n, o) => n * 256 + Number(o), 0);
    for (const { lo, hi, flags: f } of corrections.v4) if (key >= lo && key <= hi) flags = { ...flags, ...f };
  } else if (ip.version === 6 && corrections.v6.length > 0) {
    const addr = ipaddr.IPv6.parse(ip.address);
    for (const { range, flags: f } of corrections.v6) {
      if (addr.match(range)) flags = { ...flags, ...f };
    }
  }
  const corrected = CORRECTED_FLAGS.filter((f) => flags[f] !== undefined);
  if (corrected.length === 0) return ip;
  const out: IpFacts = { ...ip, ...flags, corrected };
  if (flags.hosting === true) out.as_type = 'hosting';
  else if (flags.hosting === false && out.as_type === 'hosting') delete out.as_type;
  // The services named for flags corrected away go with them (capabilities/flags.ts).
  return out;
}

/** Reads the live set when its version changed; the node's side of the store. */
export async function loadCorrections(
  store: CorrectionStore,
  held: Corrections | undefined,
): Promise<Corrections | undefined> {
  const version = await store.version();
  if (version === null) return undefined;
  if (held?.version === version) return held;
  return compileCorrections(version, await store.list());
}
