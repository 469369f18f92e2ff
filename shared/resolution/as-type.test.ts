import { describe, expect, it } from 'vitest';
import { classifyAs, classifyAsWithOperator } from './as-type.ts';

describe('classifyAs', () => {
  it('knows the curated networks whatever their registered name says', () => {
    expect(classifyAs(16509, 'Amazon.com, Inc.')).toBe('hosting');
    expect(classifyAs(15169, 'Google LLC')).toBe('hosting');
    expect(classifyAs(21928, 'T-Mobile USA, Inc.')).toBe('mobile');
    expect(classifyAs(35228, 'Telefonica UK Limited')).toBe('mobile');
    expect(classifyAs(4134, 'Chinanet')).toBe('isp');
    expect(classifyAs(9370, 'SAKURA Internet Inc.')).toBe('hosting');
    expect(classifyAsWithOperator(48337, 'Linode, LLC')).toEqual({
      type: 'hosting',
      operator: 'Akamai, Linode',
    });
  });

  it('knows hosting providers by the brand their AS names start with, on ASes not listed', () => {
    for (const [name, operator] of [
      ['Leaseweb USA, Inc.', 'Leaseweb'],
      ['Kamatera Inc', 'Kamatera'],
      ['G-Core Labs S.A.', 'G-Core Labs'],
      ['AEZA INTERNATIONAL LTD', 'Aeza'],
      ['JSC "TIMEWEB"', 'Timeweb'],
      ['M247 UK Ltd', 'M247'],
    ])
      expect(classifyAsWithOperator(1, name), name).toEqual({ type: 'hosting', operator });
  });

  it('falls back to keywords in the AS name, in rule order', () => {
    expect(classifyAs(1, 'Serverius Holding B.V.')).toBe('hosting');
    expect(classifyAs(1, 'Kingdom Cloud Telecom')).toBe('hosting');
    expect(classifyAs(1, 'Two Degrees Mobile Limited')).toBe('mobile');
    expect(classifyAs(1, 'University of Melbourne')).toBe('education');
    expect(classifyAs(1, 'Universidade Federal do Rio Grande do Sul')).toBe('education');
    expect(classifyAs(1, 'Hudson Valley Federal Credit Union')).toBe('business');
    expect(classifyAs(1, 'Federal Deposit Insurance Corporation')).toBe('government');
    expect(classifyAs(1, 'Lackawanna County Government')).toBe('government');
    expect(classifyAs(1, 'Comcast Cable Communications, LLC')).toBe('isp');
  });

  it('matches keywords as words: no bank in SoftBank, telecoms inside compound names', () => {
    expect(classifyAs(2, 'SoftBank Corp.')).not.toBe('business');
    expect(classifyAs(2, 'DataBank Holdings, Ltd.')).not.toBe('business');
    for (const name of [
      'Nedbank Limited',
      'Skandinaviska Enskilda Banken AB',
      'Turkiye Garanti Bankasi A.S.',
    ])
      expect(classifyAs(2, name), name).toBe('business');
    for (const name of [
      'PJSC Rostelecom',
      'JSC Kazakhtelecom',
      'Societe Francaise Du Radiotelephone - SFR SA',
      'Hawaiian Telcom Services Company, Inc.',
      'FIBERNETICS CORPORATION',
      'JINHUA, ZHEJIANG Province, P.R.China.',
    ])
      expect(classifyAs(2, name), name).toBe('isp');
    // Access-network words outrank the weak owner words: a telephone cooperative of a county.
    expect(classifyAs(2, 'Bulloch County Rural Telephone Cooperative, Inc.')).toBe('isp');
    expect(classifyAs(2, 'Cyprus Telecommunications Authority')).toBe('isp');
    expect(classifyAs(2, 'Telefonica Moviles del Uruguay SA')).toBe('mobile');
    expect(classifyAs(2, 'Automobile Club Deutschland')).toBe('business');
    // "colo" is not the start of Colombia; a ghost is no host.
    expect(classifyAs(2, 'HUGHES DE COLOMBIA S.A.S.')).not.toBe('hosting');
    expect(classifyAs(2, 'GHOST Telecom')).toBe('isp');
  });

  it('reads hosting words as words, after the institutions that may carry them', () => {
    // A word inside another word is not that word; a bare "colo" in a handle is no colocation.
    for (const name of [
      'FIBERHOST S.A.',
      'MUSA-COLO-01 - MURPHY OIL USA',
      'BBDO-COLO - BBDO NY',
      'The Observer Group',
      'Easyhost BVBA',
    ])
      expect(classifyAs(2, name), name).not.toBe('hosting');
    expect(classifyAs(2, 'CITY OF ST. CLOUD')).toBe('government');
    expect(classifyAs(2, 'St. Cloud State University')).toBe('education');
    expect(classifyAs(2, 'Saint Cloud Hospital')).toBe('business');
    for (const name of [
      'Serverius Holding B.V.',
      'Hostinger-like Hosting Ltd',
      'NHNCLOUD',
      'Right Servers Inc.',
    ])
      expect(classifyAs(2, name), name).toBe('hosting');
  });

  it('reads "wireless" as fixed-wireless access, and conglomerates as no operator', () => {
    for (const name of ['Surf Air Wireless, LLC', 'Montana Outback Wireless Inc.', 'NET WIRELESS S.R.L.'])
      expect(classifyAs(2, name), name).toBe('isp');
    for (const name of ['Reliance Industries Limited', 'Liberty Holdings Limited - Liberty Holdings Limited'])
      expect(classifyAs(2, name), name).not.toBe('isp');
  });

  it('knows telecom operators by the names of the MCC-MNC list', () => {
    for (const name of [
      'Telstra Limited',
      'Orange S.A.',
      'Vodafone GmbH',
      'CHINA UNICOM China169 Backbone',
      'KDDI CORPORATION',
      'Free SAS',
      'Sky UK Limited',
    ])
      expect(classifyAs(2, name), name).toBe('isp');
    // Brands that are ordinary words or other businesses' names do not match on their own.
    for (const name of ['Google LLC', 'VIVA PIXEL AGENCIA DIGITAL', 'Phoenix', 'Apple Inc.'])
      expect(classifyAs(2, name), name).toBe('unknown');
  });

  it('types mobile-first brands mobile, and no mobile network where the name says otherwise', () => {
    for (const name of ['MTN NIGERIA Communication limited', 'Airtel Ghana Limited', 'Vodacom Congo'])
      expect(classifyAs(2, name), name).toBe('mobile');
    // Fixed providers with "GSM" in the brand; a carrier arm that sells transit.
    for (const name of [
      'FIBIM FIBERNET GSM SANAYI VE TICARET ANONIM SIRKETI',
      'GSM TELECOM SERVICO DE PROVEDOR DE INTERNET LTDA',
      'China Mobile International Limited',
    ])
      expect(classifyAs(2, name), name).toBe('isp');
    // Companies named for their phone apps or services on wheels.
    for (const name of ['Creative Mobile Solutions, Inc.', 'MedStar Mobile Healthcare'])
      expect(classifyAs(2, name), name).toBe('business');
  });

  it('reads neither "networks" as an access network nor "hosted" as a host', () => {
    // CDNs and server hosts call themselves networks; a hosted call centre is a software firm.
    expect(classifyAs(2, 'Limelight Networks, Inc.')).toBe('unknown');
    expect(classifyAs(2, 'Youth Net and Counselling')).toBe('unknown');
    expect(classifyAs(2, 'Telax Hosted Call Centre')).not.toBe('hosting');
  });

  it('says unknown rather than guessing', () => {
    expect(classifyAs(1, 'Andrews & Arnold Ltd')).toBe('unknown');
    expect(classifyAs(1, undefined)).toBe('unknown');
  });
});
