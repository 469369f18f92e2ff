/**
 * Names of the world's mobile network operators, from the `mcc-mnc-list` npm package (the ITU
 * MCC/MNC assignments as listed on Wikipedia, MIT): operator and brand of every network that
 * is operational or of unknown status. An autonomous system whose registered name starts with
 * one of these names ("Orange S.A.", "Vodafone GmbH", "CHINA UNICOM China169 Backbone",
 * "KDDI CORPORATION") is a telecom operator's network: an access network, not a data centre.
 *
 * Names are compared as words after dropping case, punctuation and legal-form suffixes; a
 * single-word name must have at least four letters (so brands such as "ONE" or "3" match only a
 * registered name that is exactly that), and common words that are brands somewhere ("Smart",
 * "Globe", "Life") are never matched on their own.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

const LEGAL_FORMS = new Set(
  (
    'sa s a ag gmbh plc ltd limited inc llc corp corporation co company bv b v nv n v ab oy oyj as a s asa spa s p a ' +
    'srl sas sarl kft zrt nyrt jsc pjsc ojsc cjsc tbk pt pte pty bhd sdn llp lp se sau s a u doo d o o ad dd ead ooo tov'
  ).split(' '),
);
/**
 * Brands that are also ordinary words or other businesses' names (an MVNO brand of a search
 * engine, a retailer...): never a match on their own. Found by spot checks of the matches.
 */
const TOO_COMMON = new Set(
  (
    'smart globe life next digital movil mobile cell star telecom unity google nokia metro phoenix viva nova ' +
    'access unifi conecta switch local apple amazon lidl aldi tesco carrefour walmart'
  ).split(' '),
);

/**
 * Words of a conglomerate's or another business's name: an AS name that only starts with an
 * operator's brand and carries one of these ("Reliance Industries", "Liberty Holdings") is
 * that business, not the operator.
 */
const NOT_AN_OPERATOR = new Set(
  'industries industry holding holdings insurance assurance bank energy energia oil gas mining retail'.split(
    ' ',
  ),
);

function words(name: string): string[] {
  const ws = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9&+ ]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  while (ws.length > 1 && LEGAL_FORMS.has(ws[ws.length - 1]!)) ws.pop();
  return ws;
}

interface Network {
  brand?: string;
  operator?: string;
  status?: string;
}

function loadNames(): { prefixes: Set<string>; exact: Set<string> } {
  const list = JSON.parse(
    readFileSync(require.resolve('mcc-mnc-list/mcc-mnc-list.json'), 'utf8'),
  ) as Network[];
  const prefixes = new Set<string>();
  const exact = new Set<string>();
  for (const n of list) {
    if (n.status !== 'Operational' && n.status !== 'Unknown') continue;
    for (const raw of [n.brand, n.operator]) {
      if (!raw) continue;
      const key = words(raw).join(' ');
      if (!key || TOO_COMMON.has(key)) continue;
      exact.add(key);
      if (key.includes(' ') || key.length >= 4) prefixes.add(key);
    }
  }
  return { prefixes, exact };
}

let names: ReturnType<typeof loadNames> | undefined;

/** True when the registered AS name is, or starts with, a mobile network operator's name. */
export function isOperatorName(asName: string): boolean {
  names ??= loadNames();
  const ws = words(asName);
  if (names.exact.has(ws.join(' '))) return true;
  if (ws.some((w) => NOT_AN_OPERATOR.has(w))) return false;
  for (let n = Math.min(4, ws.length); n >= 1; n--)
    if (names.prefixes.has(ws.slice(0, n).join(' '))) return true;
  return false;
}
