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
import { isCanonicalIPv4, parseStrictRange } from './feeds/strict-address.ts';

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
 * The IPv6 blocks that write IPv4 space in another form, refused as targets (and so is a range
 * covering one). The IPv4-mapped block is not among the refused: parseStrictRange reads a range in
 * it as the IPv4 range it maps, which is how the scorer reads a mapped address (resolveIp), and
 * the form dual-stack servers log IPv4 clients in. It is listed for ranges that cover it, such as
 * `::/80`, which hold every mapped address yet would only ever be matched against IPv6 ones.
 *
 * The others are refused rather than normalised, and the refusal names the IPv4 range meant:
 * - IPv4-compatible `::a.b.c.d` is deprecated (RFC 4291 2.5.5.1) and ipaddr.js reads its
 *   spellings two ways (`::1.2.3.4` as mapped, `::102:304` as IPv6), so its meaning would hang
 *   on how it was typed; an IPv4 correction already covers whatever the scorer reads as IPv4.
 * - NAT64 (RFC 6052, RFC 8215) and IPv4-translated (RFC 6145) addresses are a translator's
 *   stand-ins: the scorer takes them for special-purpose space, which corrections leave alone,
 *   and network-specific NAT64 prefixes cannot be told at all, so mapping the well-known one
 *   alone would be a rule that holds for some translators only.
 */
const IPV4_IN_IPV6 = [
  ['::/96', 'the deprecated IPv4-compatible block ::/96 (RFC 4291)'],
  ['::ffff:0:0:0/96', 'the IPv4-translated block ::ffff:0:0:0/96 (RFC 6145)'],
  ['64:ff9b::/96', 'the NAT64 well-known prefix 64:ff9b::/96 (RFC 6052)'],
  ['64:ff9b:1::/48', 'the local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215)'],
  ['::ffff:0:0/96', 'the IPv4-mapped block ::ffff:0:0/96'],
].map(([cidr, name]) => ({ block: ipaddr.IPv6.parseCIDR(cidr!), name: name! }));

/**
 * The IPv4-compatible address a literal spells as zero hextets and a dotted quad (`::1.2.3.4`,
 * `0::1.2.3.4`), told by its text because ipaddr.js parses `::1.2.3.4` as `::ffff:1.2.3.4`.
 */
function ipv4CompatibleText(text: string): ipaddr.IPv6 | undefined {
  const m = /^[0:]*:([^:]+)$/.exec(text);
  if (!m || !isCanonicalIPv4(m[1]!)) return undefined;
  const [a, b, c, d] = ipaddr.IPv4.parse(m[1]!).octets as [number, number, number, number];
  return new ipaddr.IPv6([0, 0, 0, 0, 0, 0, (a << 8) | b, (c << 8) | d]);
}

/** Refuses an IPv6 range in or over one of the IPV4_IN_IPV6 blocks, naming the IPv4 range meant. */
function refuseIpv4InIpv6(what: string, address: ipaddr.IPv6, bits: number, minV4: number): void {
  for (const { block, name } of IPV4_IN_IPV6) {
    const [net, netBits] = block;
    if (bits < netBits && net.match(address, bits))
      throw new CorrectionError(`${what}: covers ${name}; name an IPv4 range, or an IPv6 range outside it`);
    if (!address.match(net, netBits)) continue;
    // The IPv4 range the last 32 bits name, when it is one a correction may name.
    const low = address.toByteArray().slice(12);
    const named = netBits === 96 && low[0] !== 0 && bits - 96 >= minV4;
    const meant = named ? ` (here ${ipaddr.fromByteArray(low).toString()}/${bits - 96})` : '';
    throw new CorrectionError(`${what}: in ${name}; name the IPv4 range instead${meant}`);
  }
}

/** How a caller other than the corrections reads CIDRs: an organisation's lists take any width. */
export interface CidrRules {
  minPrefix: { ipv4: number; ipv6: number };
  /** What a refusal names: the command-line flag, or the field. */
  label: string;
}

/**
 * A CIDR in its canonical form (parseStrictRange: four decimal octets without leading zeros, strict
 * IPv6, no zone, no host bits), an IPv4-mapped range written as the IPv4 range it maps, refusing
 * the other IPv6 forms of IPv4 space (IPV4_IN_IPV6) and, after mapping, a prefix wider than
 * MIN_PREFIX: `::ffff:0.0.0.0/96` is 0.0.0.0/0 and refused like it.
 */
export function parseCidrTarget(
  text: string,
  { minPrefix, label }: CidrRules = { minPrefix: MIN_PREFIX, label: '--cidr' },
): string {
  const what = `${label} ${JSON.stringify(text)}`;
  const [addr, bits, ...rest] = text.trim().split('/');
  if (addr === undefined || bits === undefined || rest.length > 0)
    throw new CorrectionError(`${what}: not address/prefix-length`);
  // Before parseStrictRange, which would take this spelling for IPv4-mapped (ipaddr.js).
  const compatible = ipv4CompatibleText(addr);
  if (compatible) refuseIpv4InIpv6(what, compatible, /^\d+$/.test(bits) ? Number(bits) : 128, minPrefix.ipv4);
  // No floor here: the width is judged on the range after mapping, below.
  const range = parseStrictRange(`${addr}/${bits}`, { v4: 0, v6: 0 });
  if (typeof range === 'string') throw new CorrectionError(`${what}: ${range}`);
  const kind = range.address.kind();
  if (range.bits < minPrefix[kind])
    throw new CorrectionError(
      `${what}: ${range.cidr} is wider than /${minPrefix[kind]}; correct the network's AS instead`,
    );
  if (kind === 'ipv6') refuseIpv4InIpv6(what, range.address as ipaddr.IPv6, range.bits, minPrefix.ipv4);
  return range.cidr;
}

/** The CIDR a stored target applies as, or why it does not (stored before the rules above). */
function appliedCidr(target: string): string | CorrectionError {
  try {
    return parseCidrTarget(target);
  } catch (err) {
    if (err instanceof CorrectionError) return err;
    throw err;
  }
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

/**
 * Validates an operator's correction; throws CorrectionError saying what is wrong. `held` (for
 * `remove`) are the stored targets, each taken as it is written: a correction stored before the
 * rules above refused or rewrote its form can still be removed by the target `list` shows.
 */
export function parseCorrection(
  input: CorrectionInput,
  now = new Date(),
  held?: ReadonlySet<string>,
): Correction {
  if ((input.cidr === undefined) === (input.asn === undefined))
    throw new CorrectionError('name exactly one of --cidr and --asn');
  const cidr = input.cidr?.trim();
  const target =
    cidr === undefined ? parseAsnTarget(input.asn!) : held?.has(cidr) ? cidr : parseCidrTarget(input.cidr!);
  return {
    target,
    ...parseKind(input.kind),
    reason: checkedText(input.reason, 'reason', MAX_REASON),
    operator: checkedText(input.operator, 'operator', MAX_OPERATOR),
    at: now.toISOString(),
  };
}

/**
 * The stored corrections a node does not apply, and why: CIDRs stored before parseCidrTarget
 * refused their form (`::ffff:0:0/96`, a NAT64 range). `admin correction list` shows them.
 */
export function unappliedCorrections(
  list: readonly Correction[],
): { target: string; flag: CorrectedFlag; why: string }[] {
  return list.flatMap(({ target, flag }) => {
    const applied = target.startsWith('AS') ? target : appliedCidr(target);
    return applied instanceof CorrectionError ? [{ target, flag, why: applied.message }] : [];
  });
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
  // Oldest first: where two stored targets are one range (an IPv4-mapped one stored before it was
  // written as IPv4, and its IPv4 form), the later says last, as a replacement would.
  for (const c of [...list].sort((a, b) => a.at.localeCompare(b.at))) {
    const target = c.target.startsWith('AS') ? c.target : appliedCidr(c.target);
    // A form the rules now refuse never applied to a scored address; unappliedCorrections names it.
    if (target instanceof CorrectionError) continue;
    const into = target.startsWith('AS') ? byAsn : byCidr;
    into.set(target, { ...into.get(target), [c.flag]: c.value });
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
