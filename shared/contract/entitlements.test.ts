import { describe, expect, it } from 'vitest';
import { entitlementErrors } from './entitlements.ts';

describe('entitlements', () => {
  const req = {
    subject: { ip_address: '1.1.1.1' },
    options: { explain: true, shadow_version: '2026.08.0' },
  };

  it('refuses shadow_version below bureau, naming the option', () => {
    expect(entitlementErrors(req, 'assess')).toEqual([
      expect.objectContaining({ code: 'E_ENTITLEMENT_REQUIRED', field: 'options.shadow_version' }),
    ]);
    expect(entitlementErrors(req, 'bureau')).toEqual([]);
    expect(entitlementErrors({ subject: { ip_address: '1.1.1.1' } }, 'verify')).toEqual([]);
  });

  it('lets an organisation entitled to the shadow score ask for it below bureau', () => {
    expect(entitlementErrors(req, 'assess', ['shadow'])).toEqual([]);
  });
});
