/**
 * Network type of an autonomous system, from its number and registered name. This is the one
 * place the rule lives.
 *
 * Sources and method, in the order they are tried:
 * 1. Curated entries per AS (asn-overrides.ts, `infra/feeds/asn-overrides.csv`): the largest
 *    networks by routed IPv4 space, the cloud/hosting providers and mobile operators, each with
 *    its type and operator, written by hand from the registered AS names in
 *    `@ip-location-db/asn` and public facts about the operators. A registered name says little
 *    about the largest networks ("Chinanet", "TE-AS", "Uninet S.A. de C.V."), and these few
 *    thousand ASes hold most of the routed space.
 * 2. Hosting providers by brand at the start of the registered name ("Leaseweb USA, Inc.",
 *    "Kamatera Inc", "G-Core Labs S.A."): a provider registers new ASes under the same name, so
 *    the brand catches those the curated list has not met yet.
 * 3. Keywords in the registered name. A keyword that is also part of unrelated words is matched
 *    at word boundaries ("SoftBank" is not a bank, a ghost is no host); telecom words match
 *    inside compounds ("Rostelecom", "Kazakhtelecom"). Tried in the order of NAME_RULES: hosting first
 *    ("XYZ Cloud Telecom" is a data centre), government before business (a "Federal Deposit
 *    Insurance Corporation" is an agency; a "Federal Credit Union" is kept out by name).
 *    Registered names are chosen by the network's owner, so this is a heuristic.
 * 4. A name no keyword matches but that is, or starts with, a mobile network operator's name in
 *    the MCC-MNC list (mobile-operators.ts: "Orange S.A.", "Vodafone GmbH") is a telecom
 *    operator's access network (`isp`).
 * A name nothing matches stays `unknown` rather than being guessed. as-type-coverage.test.ts runs
 * the rule over the installed AS table and bounds the unknown share of routed IPv4 space.
 */

import { asnOverride } from './asn-overrides.ts';
import { isOperatorName } from './mobile-operators.ts';

export type AsType = 'hosting' | 'isp' | 'mobile' | 'business' | 'education' | 'government' | 'unknown';

export interface AsClass {
  type: AsType;
  /** Who runs the network, when the rule knows it (curated entry or hosting brand). */
  operator?: string;
}

/** Hosting providers by the brand their AS names start with: operator, pattern. */
const HOSTING_BRANDS: readonly [string, RegExp][] = [
  ['Akamai, Linode', /^(?:akamai|linode)\b/i],
  ['Leaseweb', /^leaseweb\b/i],
  ['Hetzner', /^hetzner\b/i],
  ['OVHcloud', /^ovh(?:cloud)?\b/i],
  ['DigitalOcean', /^digitalocean\b/i],
  ['Vultr (The Constant Company)', /^(?:the constant company|vultr|choopa)\b/i],
  ['Contabo', /^contabo\b/i],
  ['Scaleway', /^scaleway\b/i],
  ['UpCloud', /^upcloud\b/i],
  ['IONOS', /^ionos\b/i],
  ['Hostwinds', /^hostwinds\b/i],
  ['ColoCrossing', /^colocrossing\b/i],
  ['BuyVM (FranTech)', /^(?:frantech|buyvm|ponynet)\b/i],
  ['Psychz Networks', /^psychz\b/i],
  ['QuadraNet', /^quadranet\b/i],
  ['Zenlayer', /^zenlayer\b/i],
  ['Datacamp (CDN77)', /^(?:datacamp limited|cdn77)\b/i],
  ['G-Core Labs', /^g-?core\b/i],
  ['Selectel', /^(?:jsc )?selectel\b/i],
  ['Timeweb', /^(?:jsc )?"?timeweb\b/i],
  ['Aeza', /^aeza\b/i],
  ['Hostinger', /^hostinger\b/i],
  ['Kamatera', /^kamatera\b/i],
  ['M247', /^m247\b/i],
  ['Cloudflare', /^cloudflare\b/i],
  ['Fastly', /^fastly\b/i],
  ['Alibaba Cloud', /^(?:alibaba|hangzhou alibaba)\b/i],
  ['Tencent Cloud', /^(?:shenzhen )?tencent\b/i],
  ['Oracle Cloud', /^oracle (?:corporation|svenska|america)\b/i],
  ['Rackspace', /^rackspace\b/i],
  ['Equinix', /^equinix\b/i],
  ['SAKURA Internet', /^sakura internet\b/i],
];

/**
 * Keyword rules, first match wins. Words that name a network's owner only weakly (a county, an
 * authority, a clinic) come after the access-network words, so "Bulloch County Rural Telephone
 * Cooperative" and "Cyprus Telecommunications Authority" stay access networks.
 */
const NAME_RULES: readonly [AsType, RegExp][] = [
  [
    'hosting',
    /hosting|\bhost|(?<!g)host\b|\bcolo(?:center|city|up)|cloud|data ?cent(?:er|re)|server|\bvps\b|\bvds\b|colocation|\bcolo\b|dedicated|\bcdn\b|\bidc\b|veri merkezi|rechenzentrum|managed services|\bdomain names?\b|registrar/i,
  ],
  ['mobile', /(?<!auto)mobile|wireless|cellular|celular|m[oó]vil|\bm[oó]vel\b|\bgsm\b|\blte\b/i],
  [
    'education',
    /universi(?:t|dad|dade)|college|school|academ|\beduca|\bedu\b|polytechnic|hochschule|institute of (?:science|technology)|instituto tecnol|research (?:and education )?network|research institute|institute for research|\bforschung|\bensino\b|supercomput|\blibrary\b/i,
  ],
  [
    'government',
    /government|ministry|minist[eè]re|ministerio|\bgov\b|federal(?! credit union| savings)|parliament|municipal|city of|county of|state of|department of|\bdod\b|defen[cs]e|\barmy\b|\bnavy\b|air force|usaisc|national (?:accelerator )?laborator/i,
  ],
  [
    'business',
    /(?<!soft|data)bank(?:ing|s|en|asi|a|inn)?\b|\bbanco\b|\bbanque\b|credit union|insurance|assurance|versicherung|airlines?\b|airways|hospital|pharma|automotive|automobile|logistics|retail|manufactur|railroad|railway/i,
  ],
  [
    'isp',
    /tele(?:com|kom|communication|fon|phone|cable)|\btelco(?:m)?\b|telecomunica|communicat|comunica[cç]|kommunikation|broadband|cable|\bcatv\b|\bkabel|fib(?:er|re|ra)|\bftth\b|\bdsl\b|internet|\bisp\b|\bnet(?:works?)?\b|networking|\bonline\b|iletisim|haberlesme|svyaz|\bprovedor|\binfocomm\b|\bwisp\b|\bwi-?fi\b|\bpostel\b|ertebat|p\.r\.china|^[a-z]+, ?\d{6}$/i,
  ],
  [
    'government',
    /\bcouncil\b|\bcounty\b|\bauthority\b|\bkommune\b|gemeente|\bkantons?\b|magistrat|landkreis|prefeitura|secretaria|\bgobierno\b|\bgoverno\b|\bpolice\b|\bcourt\b|administration\b/i,
  ],
  [
    'business',
    /\bhealth|medical|clinic|biotech|\bmotors?\b|\bstores\b|petrol|financial|securities|\binvestments?\b|\bhotels?\b|\bconsulting\b|publishing|newspaper|semiconductor|chemical|\bsteel\b|\bmining\b/i,
  ],
];

/** Brands, then keyword rules, then the operator names of the MCC-MNC list (mobile-operators.ts). */
function classifyName(name: string): AsClass {
  for (const [operator, pattern] of HOSTING_BRANDS)
    if (pattern.test(name)) return { type: 'hosting', operator };
  for (const [type, pattern] of NAME_RULES) if (pattern.test(name)) return { type };
  return { type: isOperatorName(name) ? 'isp' : 'unknown' };
}

/** One classification per AS name, kept: the rules run once per AS, not once per request. */
const classified = new Map<string, AsClass>();
const UNKNOWN: AsClass = { type: 'unknown' };

/** Type and, when known, operator of an AS. */
export function classifyAsWithOperator(asn: number, name: string | undefined): AsClass {
  const curated = asnOverride(asn);
  if (curated) return curated;
  if (name === undefined) return UNKNOWN;
  let found = classified.get(name);
  if (found === undefined) classified.set(name, (found = classifyName(name)));
  return found;
}

export function classifyAs(asn: number, name: string | undefined): AsType {
  return classifyAsWithOperator(asn, name).type;
}
