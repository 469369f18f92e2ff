/**
 * Network type of an autonomous system, from its number and registered name. This is the one
 * place the rule lives.
 *
 * Sources and method:
 * - ASNs listed below are well-known networks of large cloud/hosting providers and mobile
 *   operators, chosen by hand and checked against the AS names in `@ip-location-db/asn`
 *   (RouteViews/DB-IP). Extend the lists here; nothing else holds ASNs.
 * - Every other AS is classified by keywords in its registered name, tried in the order below
 *   (hosting first: "XYZ Cloud Telecom" is a data centre; business before government: a
 *   "Federal Credit Union" is a bank). Registered names are chosen by the network's owner, so
 *   this is a heuristic; a name that matches nothing stays `unknown` rather than being guessed.
 * - A name no keyword matches but that is, or starts with, a mobile network operator's name in
 *   the MCC-MNC list (mobile-operators.ts: "Orange S.A.", "Vodafone GmbH", "KDDI CORPORATION")
 *   is a telecom operator's access network (`isp`). On the load-test population this took the
 *   share of routable addresses of unknown type from 45.6 % to 27.8 %.
 */

import { isOperatorName } from './mobile-operators.ts';

export type AsType = 'hosting' | 'isp' | 'mobile' | 'business' | 'education' | 'government' | 'unknown';

/** Cloud, hosting, CDN and data-centre networks, by operator. */
const HOSTING_OPERATORS: Record<string, number[]> = {
  'Amazon Web Services': [16509, 14618, 8987, 7224, 38895],
  'Google, Google Cloud': [15169, 396982, 19527, 139070],
  'Microsoft, Azure': [8075, 8068],
  DigitalOcean: [14061],
  OVHcloud: [16276, 35540],
  Hetzner: [24940, 213230],
  'Akamai, Linode': [63949, 20940, 16625],
  'Vultr (The Constant Company)': [20473],
  Cloudflare: [13335, 209242],
  'Alibaba Cloud': [45102, 37963],
  'Tencent Cloud': [132203, 45090],
  'Oracle Cloud': [31898],
  Contabo: [51167],
  Scaleway: [12876],
  Leaseweb: [60781, 16265, 28753, 30633],
  'IBM Cloud (SoftLayer)': [36351],
  Rackspace: [19994, 27357],
  Fastly: [54113],
  Hostinger: [47583],
  IONOS: [8560],
  M247: [9009],
  'Psychz Networks': [40676],
  QuadraNet: [8100],
  'Huawei Cloud': [136907],
  GoDaddy: [26496, 398101],
  Namecheap: [22612],
  'Liquid Web': [32244],
  Zenlayer: [21859],
  'Datacamp (CDN77)': [60068],
  'G-Core Labs': [199524],
  Selectel: [49505],
  Aruba: [31034],
  Strato: [6724],
  netcup: [197540],
  Kamatera: [36007],
  'Unified Layer (Bluehost)': [46606],
  'IP Volume': [202425],
  Hivelocity: [29802],
  Render: [397273],
};

/** Mobile operators' subscriber networks. */
const MOBILE_OPERATORS: Record<string, number[]> = {
  'T-Mobile US': [21928],
  'Verizon Wireless (Cellco Partnership)': [22394, 6167],
  'AT&T Mobility': [20057],
  'Vodafone UK': [25135],
  'O2 UK (Telefonica UK)': [35228],
  'Three UK': [206067],
  'NTT DOCOMO': [9605],
  'Reliance Jio': [55836],
  'Vodafone Idea': [45271],
  'XL Axiata': [24203],
  Turkcell: [16135],
  MegaFon: [31213],
  'Mobile Communication Company of Iran': [197207],
  Irancell: [44244],
};

const asnSet = (byOperator: Record<string, number[]>): ReadonlySet<number> =>
  new Set(Object.values(byOperator).flat());
const HOSTING_ASNS = asnSet(HOSTING_OPERATORS);
const MOBILE_ASNS = asnSet(MOBILE_OPERATORS);

const NAME_RULES: readonly [AsType, RegExp][] = [
  [
    'hosting',
    /hosting|\bhost\b|cloud|data ?cent(?:er|re)|datacenter|server|\bvps\b|colocation|dedicated|\bcdn\b/i,
  ],
  ['mobile', /mobile|wireless|cellular|celular|m[oó]vil|\bgsm\b|\blte\b/i],
  [
    'education',
    /universit|college|school|academ|educat|\bedu\b|polytechnic|hochschule|institute of technology|research (?:and education )?network/i,
  ],
  ['business', /bank|credit union|insurance|airline|hospital|pharma|automotive|logistics|retail|manufactur/i],
  [
    'government',
    /government|ministry|minist[eè]re|ministerio|\bgov\b|federal|parliament|municipal|city of|county of|state of|department of|\bdod\b|defen[cs]e/i,
  ],
  [
    'isp',
    /tele(?:com|kom|communication|fon|phone)|communications|broadband|cable|fib(?:er|re)|\bdsl\b|internet|\bisp\b|\bnet(?:works?)?\b/i,
  ],
];

/** Keyword rules first; then the operator names of the MCC-MNC list (mobile-operators.ts). */
function classifyName(name: string): AsType {
  for (const [type, pattern] of NAME_RULES) if (pattern.test(name)) return type;
  return isOperatorName(name) ? 'isp' : 'unknown';
}

/** One classification per AS name, kept: the rules run once per AS, not once per request. */
const classified = new Map<string, AsType>();

export function classifyAs(asn: number, name: string | undefined): AsType {
  if (HOSTING_ASNS.has(asn)) return 'hosting';
  if (MOBILE_ASNS.has(asn)) return 'mobile';
  if (name === undefined) return 'unknown';
  let type = classified.get(name);
  if (type === undefined) classified.set(name, (type = classifyName(name)));
  return type;
}
