/**
 * Continent of an ISO 3166-1 alpha-2 country, with the seven codes GeoNames uses (AF, AN, AS,
 * EU, NA, OC, SA) and its placements (Russia, Cyprus in EU; Turkey, the Caucasus in AS; the
 * Caribbean in NA). Covers every code in @ip-location-db/geo-whois-asn-country, including XK
 * (Kosovo) and the retired AN (Netherlands Antilles); continents.test.ts checks that.
 */

const MEMBERS: Record<string, string> = {
  AF:
    'AO BF BI BJ BW CD CF CG CI CM CV DJ DZ EG EH ER ET GA GH GM GN GQ GW KE KM LR LS LY MA MG ML MR ' +
    'MU MW MZ NA NE NG RE RW SC SD SH SL SN SO SS ST SZ TD TG TN TZ UG YT ZA ZM ZW',
  AN: 'AQ BV GS HM TF',
  AS:
    'AE AF AM AZ BD BH BN BT CC CN CX GE HK ID IL IN IO IQ IR JO JP KG KH KP KR KW KZ LA LB LK MM MN ' +
    'MO MV MY NP OM PH PK PS QA SA SG SY TH TJ TL TM TR TW UZ VN YE',
  EU:
    'AD AL AT AX BA BE BG BY CH CY CZ DE DK EE ES FI FO FR GB GG GI GR HR HU IE IM IS IT JE LI LT LU ' +
    'LV MC MD ME MK MT NL NO PL PT RO RS RU SE SI SJ SK SM UA VA XK',
  NA:
    'AG AI AN AW BB BL BM BQ BS BZ CA CR CU CW DM DO GD GL GP GT HN HT JM KN KY LC MF MQ MS MX NI PA ' +
    'PM PR SV SX TC TT US VC VG VI',
  OC: 'AS AU CK FJ FM GU KI MH MP NC NF NR NU NZ PF PG PN PW SB TK TO TV UM VU WF WS',
  SA: 'AR BO BR CL CO EC FK GF GY PE PY SR UY VE',
};

const CONTINENT_OF: ReadonlyMap<string, string> = new Map(
  Object.entries(MEMBERS).flatMap(([continent, countries]) =>
    countries.split(' ').map((country) => [country, continent] as const),
  ),
);

export function continentOf(country: string): string | undefined {
  return CONTINENT_OF.get(country);
}
