import { describe, expect, it } from 'vitest';
import type { Explanation } from '../../../shared/audit/explain.ts';
import { explainPage } from './explain.ts';
import { maskExplanation } from './subject-mask.ts';

const PHONE = '+447911123456';
const IP = '81.2.69.142';
const session = {
  user_id: 'usr_1',
  org_id: 'org_1',
  email: 'staff@example.test',
  csrf: 'x'.repeat(43),
  created_at_ms: 0,
  gen: 0,
};

/** A record shaped as the API stores it: the subject in the request, the response and the evidence. */
function record(phone: string, ip: string): Explanation {
  const resolution = {
    phone_number: { e164: phone, valid: true, country_code: 'GB', ndc: '7911', line_type: 'mobile' },
    ip_address: { asn: 'AS20712', country_code: 'GB', hosting: false },
  };
  return {
    score_id: 'sc_0190c0de000070008000000000000001',
    scored_at: '2026-01-01T00:00:00.000Z',
    retained_until: '2027-01-01T00:00:00.000Z',
    score_version: '2026.01.0',
    request: {
      subject: { phone_number: phone, ip_address: ip },
      client_reference: `callback 0${phone.slice(3)} from ${ip}`,
    },
    response: { score: 42, band: 'medium', recommended_action: 'watch', subject: resolution },
    evidence: {
      components: [
        { component: 'caller_id_integrity', verdict: 'clean', contribution: 0, detail: 'CLI_VALID' },
      ],
      subject: resolution,
    },
  };
}

describe('the explain view masks the subject everywhere until it is revealed', () => {
  it('leaves no clear form of the phone number or the address anywhere in the page', () => {
    const page = explainPage(session, record(PHONE, IP), false).value;
    for (const clear of [PHONE, '447911123456', '7911123456', IP]) expect(page).not.toContain(clear);
    expect(page).toContain('+44••••••••56');
    expect(page).toContain('81.•.•.•');
    // What is not the subject stays: the evidence is still readable.
    expect(page).toContain('CLI_VALID');
    expect(page).toContain('&quot;ndc&quot;: &quot;7911&quot;');
  });

  it('shows everything in clear once revealed', () => {
    const page = explainPage(session, record(PHONE, IP), true).value;
    expect(page).toContain(`&quot;e164&quot;: &quot;${PHONE}&quot;`);
    expect(page).toContain(IP);
  });

  it('masks IPv6 in every spelling and an IPv4-mapped address as its IPv4', () => {
    const v6 = maskExplanation({
      ...record(PHONE, '2001:db8::7'),
      evidence: { note: '2001:0db8:0000:0000:0000:0000:0000:0007' },
    });
    expect(JSON.stringify(v6)).not.toMatch(/2001:db8::7|2001:0db8:0000/);
    const mapped = maskExplanation({ ...record(PHONE, '::ffff:81.2.69.142'), evidence: { seen: IP } });
    expect(JSON.stringify(mapped)).not.toContain(IP);
  });
});
