/**
 * The network-velocity finding: how many distinct organisations scored the subject's number,
 * address or network recently, as a bucket, once at least MIN_ORGANISATIONS did.
 *
 * - The shortest window that passes the threshold speaks (an hour's burst says more than a
 *   month's trickle), and within it the largest bucket.
 * - An address's /24 or /64 holds many customers, so its count speaks one bucket lower than the
 *   address's own, and only when the address itself says nothing.
 * - A shared address is scored by many organisations for honest reasons: a mobile operator's
 *   gateways (carrier NAT: the network type `mobile`, from the shipped AS tables) and privacy
 *   relays (the VPN/proxy feed's `relay` kind). Its counts, and its network's, give no points:
 *   the component says NETWORK_VELOCITY_SHARED_NETWORK, `clean`.
 * - Nothing is ever named: the codes carry a window and a bucket, never a count or an organisation.
 */
import type { CapabilityFinding } from '../definition.ts';
import type { Evidence } from '../evidence.ts';
import {
  WINDOW_S,
  WINDOWS,
  type VelocitySubjectKind,
  type VelocityWindow,
  velocitySubjects,
} from './subjects.ts';
import { rowOf, type VelocityTable } from './table.ts';

const WINDOW_WORDS: Record<VelocityWindow, string> = {
  '1h': 'in the last hour',
  '24h': 'in the last 24 hours',
  '30d': 'in the last 30 days',
};
const BUCKETS = {
  2: ['2_4', 'three or four'],
  3: ['5_24', '5 to 24'],
  4: ['25_PLUS', '25 or more'],
} as const;
type Bucket = keyof typeof BUCKETS;
type WindowCode = Uppercase<VelocityWindow>;
export type VelocityHitCode = `NETWORK_VELOCITY_${WindowCode}_${(typeof BUCKETS)[Bucket][0]}`;

const hitCode = (w: VelocityWindow, b: Bucket) =>
  `NETWORK_VELOCITY_${w.toUpperCase() as WindowCode}_${BUCKETS[b][0]}` as VelocityHitCode;

export const VELOCITY_HIT_CODES = Object.fromEntries(
  WINDOWS.flatMap((w) =>
    ([2, 3, 4] as const).map((b) => [
      hitCode(w, b),
      `The subject (its number, address or network) was scored by ${BUCKETS[b][1]} organisations ${WINDOW_WORDS[w]}.`,
    ]),
  ),
) as Record<VelocityHitCode, string>;

export const VELOCITY_CODES = {
  ...VELOCITY_HIT_CODES,
  NETWORK_VELOCITY_SHARED_NETWORK:
    'Many organisations scored the address, but it is a shared network (a mobile operator gateway or a privacy relay), where that is normal: it adds nothing.',
} as const;

export type VelocityCode = keyof typeof VELOCITY_CODES;

/**
 * A window's counts are read only while they are younger than a quarter of it: an hour's count
 * taken 20 minutes ago no longer says what the last hour held (the refresher republishes every
 * few seconds while it runs; this guards against one that stopped).
 */
const usable = (w: VelocityWindow, ageS: number) => ageS <= WINDOW_S[w] / 4;

/** The best (shortest window, then largest bucket) organisations' bucket of one row, or undefined. */
function bestOf(table: VelocityTable, row: number, ageS: number, lower: number) {
  for (const [w, window] of WINDOWS.entries()) {
    if (!usable(window, ageS)) continue;
    const bucket = table.organisations[3 * row + w]! - lower;
    if (bucket >= 2) return { window, bucket: bucket as Bucket };
  }
  return undefined;
}

/** Mobile operator networks (carrier NAT) and privacy relays: many honest users behind one address. */
export function sharedAddress(ip: Evidence['ip']): boolean {
  return ip !== undefined && (ip.as_type === 'mobile' || ip.relay === true);
}

export function velocityFinding(
  evidence: Evidence,
  table: VelocityTable | undefined,
  nowMs: number = Date.now(),
): CapabilityFinding<VelocityCode> | undefined {
  // An empty table (the usual case) costs no digest at all.
  if (!table?.naming || table.keys.length === 0) return undefined;
  const { phone, ip } = evidence;
  const subjects = velocitySubjects({
    phone_number: phone?.e164,
    ip_address: ip && !ip.bogon ? ip.address : undefined,
  });
  const ageS = Math.max(0, nowMs / 1000 - table.countedAtS);
  const shared = sharedAddress(ip);
  let best: { window: VelocityWindow; bucket: Bucket } | undefined;
  let sharedHit = false;
  let addressHit = false;
  for (const { kind, canonical } of subjects) {
    if (kind === 'net' && addressHit) continue;
    const row = rowOf(table, table.naming.key(canonical));
    if (row < 0) continue;
    const hit = bestOf(table, row, ageS, lowerFor(kind));
    if (!hit) continue;
    if (kind === 'ip') addressHit = true;
    if (kind !== 'phone' && shared) {
      sharedHit = true;
      continue;
    }
    if (!best || better(hit, best)) best = hit;
  }
  if (best) return { verdict: 'elevated', detail: hitCode(best.window, best.bucket) };
  if (sharedHit) return { verdict: 'clean', detail: 'NETWORK_VELOCITY_SHARED_NETWORK' };
  return undefined;
}

/** A network's count speaks one bucket lower than an address's or a number's. */
const lowerFor = (kind: VelocitySubjectKind) => (kind === 'net' ? 1 : 0);

function better(
  a: { window: VelocityWindow; bucket: number },
  b: { window: VelocityWindow; bucket: number },
) {
  const wa = WINDOWS.indexOf(a.window);
  const wb = WINDOWS.indexOf(b.window);
  return wa < wb || (wa === wb && a.bucket > b.bucket);
}
