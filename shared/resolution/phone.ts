import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/** What the numbering plan says about a phone number; network attributes only, never a subscriber. */
export interface PhoneFacts {
  e164: string;
  /** Matches a number pattern the plan allocates. */
  valid: boolean;
  /** Has a length the plan allows (a possible but invalid number sits in an unassigned range). */
  possible: boolean;
  /** The national number starts with a trunk zero: it resolves to no range (unattested). */
  trunkZero: boolean;
  country_code?: string;
  calling_code?: string;
  ndc?: string;
  line_type?: string;
  allocated: boolean;
}

export function resolvePhone(e164: string): PhoneFacts {
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed) {
    return { e164, valid: false, possible: false, trunkZero: false, allocated: false };
  }
  const trunkZero = parsed.nationalNumber.startsWith('0');
  const valid = !trunkZero && parsed.isValid();
  const facts: PhoneFacts = {
    e164: parsed.number,
    valid,
    possible: !trunkZero && parsed.isPossible(),
    trunkZero,
    calling_code: parsed.countryCallingCode,
    allocated: valid,
  };
  const country = parsed.country;
  if (country) facts.country_code = country;
  if (valid) {
    // The first digit group of the international format is the national destination code,
    // the same rule Google's libphonenumber uses for getLengthOfNationalDestinationCode.
    const groups = parsed.formatInternational().split(' ');
    if (groups.length >= 3) facts.ndc = groups[1];
    const type = parsed.getType();
    if (type) facts.line_type = type.toLowerCase();
  }
  return facts;
}
