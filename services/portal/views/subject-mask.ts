import ipaddr from 'ipaddr.js';
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import type { Explanation } from '../../../shared/audit/explain.ts';
import { maskSubjectValue } from '../../../shared/portal/subject-mask.ts';

/** Digits alone shorter than this are not searched for: they would match inside unrelated values. */
const MIN_BARE_DIGITS = 7;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const at = (v: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>(
    (o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined),
    v,
  );

/** Every way a phone number can be written in a record: E.164, its digits, its national number. */
function phoneForms(e164: string): string[] {
  const digits = e164.replace(/^\+/, '');
  const national = parsePhoneNumberFromString(e164)?.nationalNumber;
  return [e164, digits, ...(national ? [national, `0${national}`] : [])].filter(
    (f) => f.startsWith('+') || f.length >= MIN_BARE_DIGITS,
  );
}

/** Every way an address can be written: as sent, its IPv4 if it was IPv4-mapped, IPv6 in full. */
function ipForms(sent: string): { canonical: string; forms: string[] } {
  if (!ipaddr.isValid(sent)) return { canonical: sent, forms: [sent] };
  const ip = ipaddr.process(sent);
  const forms = [sent, ip.toString()];
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    forms.push(v6.toNormalizedString(), v6.parts.map((p) => p.toString(16).padStart(4, '0')).join(':'));
  }
  return { canonical: ip.toString(), forms };
}

/** Each clear form of the score's subject with what replaces it, longest first. */
function subjectForms(e: Explanation): [string, string][] {
  const out = new Map<string, string>();
  const phones = [
    at(e.request, 'subject', 'phone_number'),
    at(e.evidence, 'subject', 'phone_number', 'e164'),
    at(e.response, 'subject', 'phone_number', 'e164'),
  ];
  for (const p of phones.map(str).filter((p) => p !== undefined)) {
    const masked = maskSubjectValue('phone_number', p);
    for (const f of phoneForms(p)) out.set(f, masked);
  }
  const ip = str(at(e.request, 'subject', 'ip_address'));
  if (ip) {
    const { canonical, forms } = ipForms(ip);
    for (const f of forms) out.set(f, maskSubjectValue('ip_address', canonical));
  }
  return [...out].sort(([a], [b]) => b.length - a.length);
}

function scrub(v: unknown, replace: (s: string) => string): unknown {
  if (typeof v === 'string') return replace(v);
  if (Array.isArray(v)) return v.map((x) => scrub(x, replace));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [replace(k), scrub(x, replace)]));
  return v;
}

/**
 * The explanation with its subject masked wherever it appears: the request, the response's
 * subject resolution, the evidence (`subject.phone_number.e164`) and any other string that
 * carries it (a `client_reference` holding the number, say). Masking by value, not by field,
 * so a field added to the evidence later cannot show the number in clear.
 */
export function maskExplanation(e: Explanation): Explanation {
  const forms = subjectForms(e);
  const replace = (s: string) => forms.reduce((acc, [clear, masked]) => acc.split(clear).join(masked), s);
  return {
    ...e,
    request: scrub(e.request, replace) as Record<string, unknown>,
    response: scrub(e.response, replace) as Record<string, unknown>,
    evidence: scrub(e.evidence, replace) as Record<string, unknown>,
  };
}
