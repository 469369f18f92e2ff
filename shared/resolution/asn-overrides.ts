/**
 * Curated network types of individual autonomous systems: `infra/feeds/asn-overrides.csv`, one
 * line per AS, `asn,type,operator` (the operator is the rest of the line, so it may hold commas:
 * "Akamai, Linode"). The file is read once, on first use, like the MCC-MNC list of
 * mobile-operators.ts: it is part of the rule (as-type.ts), versioned and reviewed with the code,
 * not a feed that a refresh replaces, so the classification of a given AS is the same in every
 * process of one release (API nodes, calibration, the load tests).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The network types an AS can be given; as-type.ts adds `unknown` for the ones no rule types. */
export const KNOWN_AS_TYPES = ['hosting', 'isp', 'mobile', 'business', 'education', 'government'] as const;
export type KnownAsType = (typeof KNOWN_AS_TYPES)[number];

export interface AsnOverride {
  type: KnownAsType;
  operator: string;
}

export const ASN_OVERRIDES_FILE = fileURLToPath(
  new URL('../../infra/feeds/asn-overrides.csv', import.meta.url),
);

const TYPES: ReadonlySet<string> = new Set(KNOWN_AS_TYPES);
const LINE = /^(\d{1,10}),([a-z]+),(\S.*)$/;

/** Parses the file's text; a malformed line, unknown type or repeated AS is an error, not skipped. */
export function parseAsnOverrides(text: string): Map<number, AsnOverride> {
  const out = new Map<number, AsnOverride>();
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = LINE.exec(line);
    if (!m || !TYPES.has(m[2]!)) throw new Error(`asn-overrides: line ${i + 1} is not 'asn,type,operator'`);
    const asn = Number(m[1]);
    if (out.has(asn)) throw new Error(`asn-overrides: AS${asn} is listed twice (line ${i + 1})`);
    out.set(asn, { type: m[2] as KnownAsType, operator: m[3]!.trim() });
  });
  return out;
}

let table: Map<number, AsnOverride> | undefined;

/** The curated entry of an AS, if the file lists it. */
export function asnOverride(asn: number): AsnOverride | undefined {
  table ??= parseAsnOverrides(readFileSync(ASN_OVERRIDES_FILE, 'utf8'));
  return table.get(asn);
}
