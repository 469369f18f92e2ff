import { describe, expect, it } from 'vitest';
import { html } from './html.ts';
import { maskSubjectValue } from '../../shared/portal/subject-mask.ts';

describe('html', () => {
  it('escapes every interpolated value, nested arrays included, and keeps html fragments', () => {
    const label = `<script>alert("x")</script>' \``;
    const out = html`<td title="${label}">${[label, html`<b>${label}</b>`]}</td>`.value;
    expect(out).not.toContain('<script>');
    expect(out).toBe(
      // The templates quote every attribute, so a backtick needs no escaping (escape-html leaves it).
      '<td title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; `">' +
        '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; `' +
        '<b>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; `</b></td>',
    );
  });

  it('renders null, undefined and false as nothing, numbers as text', () => {
    expect(html`${null}${undefined}${false}${0}`.value).toBe('0');
  });
});

describe('maskSubjectValue', () => {
  it('keeps only the country part of a phone number and the first group of an address', () => {
    expect(maskSubjectValue('phone_number', '+447911123456')).toBe('+44••••••••56');
    expect(maskSubjectValue('ip_address', '81.2.69.142')).toBe('81.•.•.•');
    expect(maskSubjectValue('ip_address', '2001:db8::1')).toBe('2001:••••');
    expect(maskSubjectValue('phone_number', '+4412')).toBe('•••••');
  });
});
