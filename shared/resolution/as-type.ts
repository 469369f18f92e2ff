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
 * 3. Keywords in the registered name, matched as words or word starts ("SoftBank" is not a
 *    bank, FIBERHOST no host); telecom words match inside compounds ("Rostelecom",
 *    "Kazakhtelecom"). Tried in the order of NAME_RULES: institutions first (a "City of St.
 *    Cloud" is a city), then hosting ("XYZ Cloud Telecom" is a data centre); government before
 *    business (a "Federal Deposit Insurance Corporation" is an agency; a "Federal Credit Union"
 *    is kept out by name). Registered names are chosen by the network's owner, so this is a
 *    heuristic.
 * 4. Brands that are mobile operators wherever they operate (MOBILE_BRANDS: Airtel, Vodacom,
 *    MTN...) are `mobile`. A name no keyword matches but that is, or starts with, a mobile
 *    network operator's name in
 *    the MCC-MNC list (mobile-operators.ts: "Orange S.A.", "Vodafone GmbH") is a telecom
 *    operator's access network (`isp`). A conglomerate that shares a brand with an operator
 *    ("Reliance Industries", "Liberty Holdings") is not one (mobile-operators.ts); a business
 *    that holds a network code for a private radio network ("PGE Systemy") is curated.
 * A name nothing matches stays `unknown` rather than being guessed. as-type-coverage.test.ts runs
 * the rule over the installed AS table and bounds the unknown share of routed IPv4 space.
 */

import { asnOverride, type KnownAsType } from './asn-overrides.ts';
import { isOperatorName } from './mobile-operators.ts';

export type AsType = KnownAsType | 'unknown';

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

const BRAND_OPERATORS: ReadonlySet<string> = new Set(HOSTING_BRANDS.map(([operator]) => operator));

/** A hosting company known by brand (HOSTING_BRANDS), which rents servers to anyone. */
export function isHostingBrand(operator: string): boolean {
  return BRAND_OPERATORS.has(operator);
}

/**
 * Keyword rules, first match wins. Keywords match whole words or the start of a word, not any
 * substring: "FIBERHOST" is no host, an "Observer" no server, and a handle such as
 * "MUSA-COLO-01" (Murphy Oil) or "BBDO-COLO" says nothing about colocation, so a bare "colo" is
 * not read at all. Institutions come first: a city, a county, a university or a bank whose name
 * happens to carry a hosting word ("City of St. Cloud") is that institution. Words that name a
 * network's owner only weakly (a county, an authority, a clinic) come after the access-network
 * words, so "Bulloch County Rural Telephone Cooperative" and "Cyprus Telecommunications
 * Authority" stay access networks. "Wireless" alone is a fixed-wireless access provider far
 * more often than a mobile operator, so it reads as `isp`.
 */
const NAME_RULES: readonly [AsType, RegExp][] = [
  [
    'education',
    /universi(?:t|dad|dade)|\bcolleges?\b|\bschools?\b|\bacadem|\beduca|\bedu\b|polytechnic|hochschule|institute of (?:science|technology)|instituto tecnol|research (?:and education )?network|research institute|institute for research|\bforschung|\bensino\b|supercomput|\blibrary\b/i,
  ],
  [
    'government',
    /government|ministry|minist[eè]re|ministerio|\bgov\b|federal(?! credit union| savings)|parliament|municipal|\bcity of\b|\bcounty of\b|\bstate of\b|department of|\bdod\b|defen[cs]e|\barmy\b|\bnavy\b|air force|usaisc|national (?:accelerator )?laborator/i,
  ],
  [
    'business',
    /(?<!soft|data|gigabit|rack)bank(?:ing|s|en|asi|a|inn)?\b|\bbanco\b|\bbanque\b|credit union|insurance|assurance|versicherung|airlines?\b|airways|hospital|pharma|automotive|automobile|logistics|retail|manufactur|railroad|railway/i,
  ],
  [
    'hosting',
    /(?<!g)hosting|\bhost(?!el|ess|ile|age|ed\b)|\bwebhost|(?<!\b(?:st\.?|saint) )\bcloud|cloud\b|\bdata ?cent(?:er|re)s?\b|\bdatacent(?:er|re)|\bserver|\bvps\b|\bvds\b|\bcolocation\b|\bcolo(?:center|city|up)\b|\bdedicated\b|\bcdn\b|\bidc\b|veri merkezi|rechenzentrum|managed services|\bdomain names?\b|\bregistrar\b/i,
  ],
  // IT service companies named for information and communication ("NICE Information &
  // Telecommunication", "Lotte Data Communication") run their group's systems, not access.
  [
    'business',
    /\b(?:information|data)\s+(?:(?:&|and)\s+)?(?:tele)?communications?\b(?!.*\b(?:authority|ministry)\b)/i,
  ],
  // Companies named for what they do on phones (apps, security, healthcare on wheels) are not
  // operators.
  [
    'business',
    /\bmobile\b.*\b(?:solutions|software|security|apps?|games?|marketing|health(?:care)?|medical|response|payments?)\b|\b(?:medical|healthcare)\b.*\bmobile\b/i,
  ],
  ['mobile', /\bmobile\b|cellular|celular|m[oó]vil|\bm[oó]vel\b|\bgsm\b|\blte\b/i],
  [
    'isp',
    /tele(?:com|kom|communication|fon|phone|cable)|\btelco(?:m)?\b|telecomunica|communicat|comunica[cç]|kommunikation|broadband|cable|\bcatv\b|\bkabel|\bfib(?:er|re|ra)|\bftth\b|\bdsl\b|internet|\bisp\b|\bonline\b|iletisim|haberlesme|svyaz|\bprovedor|\binfocomm\b|\bwisp\b|wi-?fi\b|wireless|\btel(?:kom|net)\b|\bkomunika|\bakses\b|\bverkko|\bpostel\b|ertebat|p\.r\.china|^[a-z]+, ?\d{6}$/i,
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

/**
 * Brands, then keyword rules, then the operator names of the MCC-MNC list (mobile-operators.ts):
 * the name rules alone, without the curated entries (the precision test measures them apart).
 */
export function classifyName(name: string): AsClass {
  for (const [operator, pattern] of HOSTING_BRANDS)
    if (pattern.test(name)) return { type: 'hosting', operator };
  let type: AsType = 'unknown';
  for (const [ruled, pattern] of NAME_RULES) {
    if (pattern.test(name)) {
      type = ruled;
      break;
    }
  }
  // An operator's international carrier arm ("China Mobile International") sells transit.
  if (CARRIER_ARM.test(name)) return { type: 'isp' };
  // "GSM" or "mobile" beside fixed-access words ("Fibernet GSM", "GSM Telecom Provedor de
  // Internet") is a fixed provider's brand, not a mobile network.
  if (type === 'mobile' && FIXED_ACCESS_WORDS.test(name)) return { type: 'isp' };
  if (type !== 'isp' && type !== 'unknown') return { type };
  if (MOBILE_BRANDS.test(name) && !FIXED_ACCESS_WORDS.test(name)) return { type: 'mobile' };
  if (!isOperatorName(name)) return { type };
  // A mobile network operator of the MCC-MNC list whose name says mobile, even inside a
  // compound ("Lycamobile", "Afghan Wireless Communication Company"), is a mobile network,
  // unless the name also says fixed lines ("Cable & Wireless Panama"); other operators are
  // convergent telecoms, read as access networks (the list names "Orange", "Proximus", "China
  // Unicom" and "AT&T" alike, and most ASes under such a bare brand carry fixed lines too).
  const mobile = MOBILE_OPERATOR_WORDS.test(name) && !FIXED_ACCESS_WORDS.test(name);
  return { type: mobile ? 'mobile' : 'isp' };
}

const CARRIER_ARM = /\bmobile international\b/i;
const MOBILE_OPERATOR_WORDS = /mobil|wireless|cellular|celular|m[oó]vil/i;
/**
 * Brands that are mobile operators wherever they run a network (public facts about the groups:
 * Bharti Airtel's African and South Asian operators, Vodacom, MTN, Millicom's Tigo, Zain,
 * Digicel, Viettel's foreign operators, Telecel, Libyana, Safaricom, Irancell, MegaFon, Tele2
 * Russia): their ASes carry mobile subscribers whatever else the name says.
 */
const MOBILE_BRANDS =
  /^(?:airtel|vodacom|mtn|tigo|zain|digicel|safaricom|libyana|irancell|megafon|pjsc megafon|t2 mobile|halotel|viettel (?:tanzania|cameroun|burundi|cambodia|peru|haiti|mozambique)|lonestar|telecel|mascom|cell c)\b/i;
const FIXED_ACCESS_WORDS =
  /cable|kabel|\bfib(?:er|re|ra)|\bdsl\b|\bftth\b|broadband|\bcatv\b|provedor|\binternet\b/i;

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
