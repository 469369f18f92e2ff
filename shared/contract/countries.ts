/**
 * The country codes a caller may name (`context.geography`): the 249 officially assigned ISO
 * 3166-1 alpha-2 codes, from the ISO 3166 Maintenance Agency's Online Browsing Platform
 * (https://www.iso.org/obp/ui/#search, "officially assigned"; unchanged since BQ, CW and SX
 * replaced AN in 2010 and SS was added in 2011), and three more that the service itself gives
 * subjects (below).
 *
 * An explicit list, not libphonenumber-js's getCountries(): that lists regions with a calling
 * code, so it lacks assigned codes of places without one (AQ, BV, GS, HM, PN, TF, UM) and would
 * change with the numbering metadata. Nor Intl.DisplayNames: it names user-assigned codes too.
 *
 * The three: a subject's country comes from the numbering plan and the registries, and the
 * context compares it with these lists, so a code a subject can resolve to must be nameable.
 * libphonenumber gives +247 numbers AC (Ascension) and +290 8 numbers TA (Tristan da Cunha),
 * codes ISO reserves for them at the ITU's request, and +383 numbers XK (Kosovo, user-assigned),
 * the code the registries give Kosovo's addresses too. Other user-assigned codes (AA, QM-QZ,
 * XA-XZ, ZZ), the other reserved ones (UK, EU...) and retired ones (AN, YU...) are refused; no
 * subject resolves to them (but one stale IPv6 registry range still says AN: a caller names CW,
 * SX or BQ, as ISO does since 2010).
 */
export const COUNTRY_CODES: readonly string[] = [
  ...'AC AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ'.split(' '),
  ...'BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ'.split(' '),
  ...'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ'.split(' '),
  ...'DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR'.split(' '),
  ...'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY'.split(' '),
  ...'HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP'.split(' '),
  ...'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY'.split(' '),
  ...'MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ'.split(' '),
  ...'NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA'.split(' '),
  ...'RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ'.split(' '),
  ...'TA TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ'.split(' '),
  ...'VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW'.split(' '),
];

const ASSIGNED: ReadonlySet<string> = new Set(COUNTRY_CODES);

/** True for a code of COUNTRY_CODES; case matters (`gb` is not a code). */
export const isCountryCode = (code: string): boolean => ASSIGNED.has(code);
