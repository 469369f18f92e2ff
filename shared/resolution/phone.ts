import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { carrierFor, type CarrierPrefixes } from './carrier-prefixes.ts';
import { nationalDestinationCode } from './ndc.ts';

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
  /** The carrier the number's range was originally assigned to; porting is not visible here. */
  operator?: string;
  allocated: boolean;
}

/**
 * Google only names a carrier for numbers that can be mobile: its carrier data describes mobile
 * ranges, and a fixed-line number that shares a prefix would be mislabelled
 * (PhoneNumberToCarrierMapper.getNameForNumber).
 */
const CARRIER_LINE_TYPES = new Set(['mobile', 'fixed_line_or_mobile', 'pager']);

export function resolvePhone(e164: string, carriers: CarrierPrefixes): PhoneFacts {
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed) {
    return { e164, valid: false, possible: false, trunkZero: false, allocated: false };
  }
  // libphonenumber-js strips a national prefix even after the country code, so "+44 07911..."
  // parses as "+44 7911..."; compare with the digits as sent. A zero the plan keeps (Italy's
  // "+39 06...") stays in the parsed national number and is not a trunk zero.
  const sentNational = e164.slice(1 + parsed.countryCallingCode.length);
  const trunkZero = sentNational.startsWith('0') && !parsed.nationalNumber.startsWith('0');
  if (trunkZero) {
    return {
      e164,
      valid: false,
      possible: false,
      trunkZero,
      calling_code: parsed.countryCallingCode,
      allocated: false,
    };
  }
  // With the max metadata, isValid() is exactly getType() !== undefined (isValid.js); asking
  // for the type once saves a second pass over every number-type pattern of the plan.
  const type = parsed.getType();
  const valid = type !== undefined;
  const facts: PhoneFacts = {
    e164: parsed.number,
    valid,
    possible: parsed.isPossible(),
    trunkZero,
    calling_code: parsed.countryCallingCode,
    allocated: valid,
  };
  const country = parsed.country;
  if (country) facts.country_code = country;
  if (valid) {
    const ndc = nationalDestinationCode(country, parsed.countryCallingCode, parsed.nationalNumber);
    if (ndc !== undefined) facts.ndc = ndc;
    if (type) facts.line_type = type.toLowerCase();
    if (CARRIER_LINE_TYPES.has(facts.line_type ?? '')) {
      const operator = carrierFor(carriers, parsed.countryCallingCode, parsed.nationalNumber);
      if (operator) facts.operator = operator;
    }
  }
  return facts;
}
