import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataPackages } from './data-packages.ts';
import { readV4Csv, readV6Csv, textField, uintField } from './range-csv.ts';

/** The first lines of the installed routing tables (@ip-location-db/asn, DB-IP's CC BY 4.0 data). */
const head = (file: string, lines: number) =>
  Buffer.from(
    readFileSync(join(dataPackages().asn.dir, file), 'utf8').split('\n').slice(0, lines).join('\n') + '\n',
  );

describe('the range CSV reader', () => {
  it('reads IPv4 bounds and keeps each row’s other columns, a quoted name unquoted', () => {
    const rows = readV4Csv(head('asn-ipv4-num.csv', 4));
    expect(rows.length).toBe(4);
    // 1.0.0.0-1.0.0.255, AS13335.
    expect([rows.starts[0], rows.ends[0]]).toEqual([16777216, 16777471]);
    const tail = (i: number) => rows.bytes.toString('utf8', rows.tailStart[i], rows.tailEnd[i]);
    expect(tail(0)).toBe('13335,"Cloudflare, Inc."');
    const comma = rows.tailStart[0]! + '13335,'.length;
    expect(textField(rows.bytes, comma, rows.tailEnd[0]!)).toBe('Cloudflare, Inc.');
    expect(uintField(rows.bytes, rows.tailStart[0]!, comma - 1)).toBe(13335);
  });

  it('reads IPv6 bounds as 128-bit integers', () => {
    const rows = readV6Csv(head('asn-ipv6-num.csv', 3));
    expect(rows.length).toBe(3);
    // The first row starts at 2001:: exactly (Hurricane Electric's 2001::/32).
    expect(rows.starts[0]).toBe(0x20010000n << 96n);
    expect(rows.ends[0]! > rows.starts[0]!).toBe(true);
  });

  it('takes CRLF line ends and a last line without one', () => {
    const rows = readV4Csv(Buffer.from('16777216,16777471,13335,x\r\n16778240,16779263,38803,y'));
    expect(rows.length).toBe(2);
    expect(rows.bytes.toString('utf8', rows.tailStart[0], rows.tailEnd[0])).toBe('13335,x');
    expect(rows.bytes.toString('utf8', rows.tailStart[1], rows.tailEnd[1])).toBe('38803,y');
  });

  it('refuses a malformed bound, naming its line', () => {
    expect(() => readV4Csv(Buffer.from('1,2,x\n1.0.0.0,2,x\n'))).toThrow('line 2');
    expect(() => readV4Csv(Buffer.from('1,4294967296,x\n'))).toThrow('line 1');
    expect(() => readV4Csv(Buffer.from('1,-2,x\n'))).toThrow('line 1');
    expect(() => readV6Csv(Buffer.from(`1,${(1n << 128n).toString()},x\n`))).toThrow('line 1');
    expect(() => readV4Csv(Buffer.from('12\n'))).toThrow('malformed');
  });
});
