import { describe, expect, it } from 'vitest';
import { asDataAttribution } from './explain.ts';

describe('explain view: AS data attribution', () => {
  it('links DB-IP, RouteViews, the NRO and CC BY 4.0 wherever AS data is shown', () => {
    const out = asDataAttribution({ asn: 'AS3320', as_name: 'Deutsche Telekom AG', as_type: 'isp' }).value;
    expect(out).toContain('<a href="https://db-ip.com">IP Geolocation by DB-IP</a>');
    expect(out).toContain('https://www.routeviews.org/');
    expect(out).toContain('https://www.nro.net/');
    expect(out).toContain('https://creativecommons.org/licenses/by/4.0/');
  });

  it('says nothing where no AS data is shown', () => {
    expect(asDataAttribution(undefined).value).toBe('');
    expect(asDataAttribution({ address: '192.0.2.1', bogon: true }).value).toBe('');
  });
});
