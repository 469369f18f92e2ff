/**
 * The national destination code of a valid number: the first digit group of its international
 * format, the rule Google's libphonenumber uses for getLengthOfNationalDestinationCode.
 *
 * `PhoneNumber.formatInternational()` gives the same groups, but on every call it builds a
 * Metadata object and a Format object for each format of the plan, and compiles each pattern it
 * tries. Here each numbering plan's formats are compiled once, on first use, from the same
 * metadata; ndc.test.ts checks that the groups are formatInternational's for every country's
 * example number and its neighbours, and for the reference population's numbers.
 */
import { Metadata, type CountryCode } from 'libphonenumber-js/core';
import metadataMax from 'libphonenumber-js/metadata.max.json';

/** What this module reads of libphonenumber-js's Format objects (not in its type declarations). */
interface LibFormat {
  pattern(): string;
  leadingDigitsPatterns(): string[];
  internationalFormat(): string;
}

interface CompiledFormat {
  /** The most detailed leading-digits pattern, anchored: the number must start with it. */
  leading: RegExp | undefined;
  whole: RegExp;
  groups: RegExp;
  template: string;
}

/**
 * Runs of the punctuation libphonenumber-js turns into one space in an international format:
 * dashes, slashes, dots, white space, brackets and tildes, full-width forms included.
 */
const SEPARATORS =
  /[-\u2010-\u2015\u2212\u30FC\uFF0D\uFF0F/\uFF0E. \xA0\xAD\u200B\u2060\u3000()\uFF08\uFF09\uFF3B\uFF3D[\]~\u2053\u223C\uFF5E]+/g;

const metadata = new Metadata(metadataMax as ConstructorParameters<typeof Metadata>[0]);
const plans = new Map<string, CompiledFormat[]>();

function formatsOf(plan: string): CompiledFormat[] {
  let compiled = plans.get(plan);
  if (compiled === undefined) {
    metadata.selectNumberingPlan(plan as CountryCode);
    const formats = (metadata.numberingPlan as unknown as { formats(): LibFormat[] }).formats();
    compiled = formats.map((f) => {
      const leading = f.leadingDigitsPatterns().at(-1);
      return {
        leading: leading === undefined ? undefined : new RegExp(`^(?:${leading})`),
        whole: new RegExp(`^(?:${f.pattern()})$`),
        groups: new RegExp(f.pattern()),
        template: f.internationalFormat(),
      };
    });
    plans.set(plan, compiled);
  }
  return compiled;
}

/**
 * `country` as parsed (undefined or '001' for a non-geographic number: its calling code's plan),
 * `national` the parsed national number. Undefined when the international format has one group.
 */
export function nationalDestinationCode(
  country: string | undefined,
  callingCode: string,
  national: string,
): string | undefined {
  const plan = country !== undefined && country !== '001' ? country : callingCode;
  for (const format of formatsOf(plan)) {
    if (format.leading !== undefined && !format.leading.test(national)) continue;
    if (!format.whole.test(national)) continue;
    const groups = national
      .replace(format.groups, format.template)
      .replace(SEPARATORS, ' ')
      .trim()
      .split(' ');
    return groups.length >= 2 ? groups[0] : undefined;
  }
  return undefined;
}
