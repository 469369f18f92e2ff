import { describe, expect, it } from 'vitest';
import { getCountries, getExampleNumber, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';
import { drawBootstrap } from '../scoring/calibration/bootstrap.ts';
import { nationalDestinationCode } from './ndc.ts';

/** The first group of formatInternational's national part, where it has two groups or more. */
function fromFormatInternational(e164: string): string | undefined {
  const groups = parsePhoneNumberFromString(e164)!.formatInternational().split(' ');
  return groups.length >= 3 ? groups[1] : undefined;
}

function compare(numbers: string[]): { checked: number; withNdc: number } {
  let checked = 0;
  let withNdc = 0;
  for (const e164 of numbers) {
    const parsed = parsePhoneNumberFromString(e164);
    if (!parsed?.isValid()) continue;
    const ours = nationalDestinationCode(parsed.country, parsed.countryCallingCode, parsed.nationalNumber);
    expect(ours, e164).toBe(fromFormatInternational(e164));
    checked++;
    if (ours !== undefined) withNdc++;
  }
  return { checked, withNdc };
}

describe('nationalDestinationCode', () => {
  it("is formatInternational's first group for every country's example number and its neighbours", () => {
    const numbers: string[] = [];
    for (const country of getCountries()) {
      const example = getExampleNumber(country, examples);
      if (!example) continue;
      const e164 = example.number as string;
      // The example and numbers that differ in their last digits or their length: other formats.
      numbers.push(
        e164,
        e164.slice(0, -1),
        `${e164}1`,
        `${e164.slice(0, -3)}999`,
        `${e164.slice(0, -4)}0000`,
      );
    }
    const { checked, withNdc } = compare(numbers);
    expect(checked).toBeGreaterThan(240);
    expect(withNdc).toBeGreaterThan(150);
  });

  it("is formatInternational's first group across the reference population's numbers", () => {
    const phones = drawBootstrap(5000, 7)
      .subjects.map((s) => s.phone_number)
      .filter((p): p is string => p !== undefined);
    const { checked, withNdc } = compare(phones);
    expect(checked).toBeGreaterThan(2000);
    expect(withNdc).toBeGreaterThan(1000);
  });

  it('uses the plan of the calling code for a non-geographic number', () => {
    // +800: International Freephone, country 001.
    const parsed = parsePhoneNumberFromString('+80012345678')!;
    expect(parsed.country).toBeUndefined();
    expect(nationalDestinationCode(parsed.country, '800', parsed.nationalNumber)).toBe(
      fromFormatInternational('+80012345678'),
    );
  });
});
