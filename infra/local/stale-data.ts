/**
 * The start banner's word on stale data: which data sets `GET /v1/health` reports older than
 * their maximum age, how old, and the one command that refreshes them from their publishers
 * (`npm run feeds:update` into infra/feeds/, which the running refresher reads, then a refresh job
 * per capability so the nodes swap now rather than at the next scheduled run).
 */

/** A capability as `GET /v1/health` reports it (the fields this reads). */
export interface HealthCapability {
  data_as_of?: string;
  max_data_age_s?: number;
  stale?: boolean;
}

const LISTS_VPN = 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input';

/**
 * The publishers' files of each capability's feeds, as docs/data-sources.md names them, and what
 * a refresh from them cannot change.
 */
const PUBLISHED: Readonly<Record<string, { from?: readonly string[]; limit?: string }>> = {
  reputation_ledger: {
    limit: 'its feed is a format sample: no public list of fraud reports exists to refresh it from',
  },
  ip_tor_exit: { from: ['https://check.torproject.org/torbulkexitlist'] },
  ip_vpn_proxy: {
    from: [
      `${LISTS_VPN}/vpn/ASN.txt`,
      `${LISTS_VPN}/vpn/ips/mullvadvpn.txt`,
      `${LISTS_VPN}/vpn/ips/pia.txt`,
      `${LISTS_VPN}/vpn/ips/protonvpn.txt`,
    ],
    limit: "the providers' prefixes come from the routing table: it is never newer than that",
  },
  ip_network_type: {
    from: [
      `${LISTS_VPN}/datacenter/ASN.txt`,
      'https://ip-ranges.amazonaws.com/ip-ranges.json',
      'https://www.gstatic.com/ipranges/cloud.json',
    ],
    limit: 'its routing table is the installed @ip-location-db package, as old as its release',
  },
};

const DAY_S = 86_400;

function days(s: number): string {
  const d = Math.floor(s / DAY_S);
  return d === 1 ? '1 day' : `${d} days`;
}

/** The banner's lines on stale data, or none when every data set is within its maximum age. */
export function staleDataLines(
  capabilities: Readonly<Record<string, HealthCapability>>,
  nowMs: number,
): string[] {
  const stale = Object.entries(capabilities).filter(([, c]) => c.stale === true);
  if (stale.length === 0) return [];
  const width = Math.max(...stale.map(([name]) => name.length));
  const lines = [
    `Stale data: ${stale.length === 1 ? 'one data set is' : `${stale.length} data sets are`} older than the maximum age`,
    'health reports (/v1/health); each still counts what it lists, but vouches for nothing it does not:',
  ];
  for (const [name, c] of stale) {
    const asOf = c.data_as_of ?? '?';
    const age = c.data_as_of ? days((nowMs - Date.parse(c.data_as_of)) / 1000) : '?';
    const max = c.max_data_age_s !== undefined ? days(c.max_data_age_s) : '?';
    const limit = PUBLISHED[name]?.limit;
    lines.push(
      `  ${name.padEnd(width)}  data of ${asOf.slice(0, 10)}, ${age} old (maximum ${max})${limit ? `; ${limit}` : ''}`,
    );
  }
  const refreshable = stale.map(([name]) => name).filter((name) => PUBLISHED[name]?.from);
  if (refreshable.length > 0) {
    const from = refreshable.flatMap((name) => PUBLISHED[name]!.from!.map((url) => `--from ${url}`));
    const jobs = refreshable.map((name) => `npm run --silent refresh -- ${name}`);
    lines.push(
      'Refresh them from their publishers (needs internet; writes infra/feeds/):',
      `  npm run feeds:update -- ${from.join(' ')} && ${jobs.join(' && ')}`,
    );
  }
  return lines;
}
