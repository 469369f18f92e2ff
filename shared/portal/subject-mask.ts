/**
 * How the portal shows a subject it does not reveal: phone numbers keep their first 3 and last 2
 * characters, IPs their first group. The Activity list is stored masked this way (the audit sink
 * writes it), and the pages mask again at render, which leaves a masked value as it is.
 */
export function maskSubjectValue(kind: 'phone_number' | 'ip_address', v: string): string {
  if (kind === 'ip_address') {
    if (v.includes(':')) return `${v.split(':')[0]}:••••`;
    return `${v.split('.')[0]}.•.•.•`;
  }
  return v.length <= 5 ? '•'.repeat(v.length) : `${v.slice(0, 3)}${'•'.repeat(v.length - 5)}${v.slice(-2)}`;
}
