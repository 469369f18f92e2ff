import { describe, expect, it } from 'vitest';
import { readStringDocument } from './carrier-prefixes.ts';

/** A BSON document built by hand from the spec (bsonspec.org): int32 size, elements, 0x00. */
function document(elements: Buffer[]): Buffer {
  const body = Buffer.concat([...elements, Buffer.from([0])]);
  const size = Buffer.alloc(4);
  size.writeInt32LE(body.length + 4);
  return Buffer.concat([size, body]);
}

function element(type: number, key: string, value: Buffer): Buffer {
  return Buffer.concat([Buffer.from([type]), Buffer.from(`${key}\0`), value]);
}

function string(text: string): Buffer {
  const bytes = Buffer.from(`${text}\0`);
  const size = Buffer.alloc(4);
  size.writeInt32LE(bytes.length);
  return Buffer.concat([size, bytes]);
}

describe('readStringDocument', () => {
  it('reads prefix → name pairs, including non-ASCII names', () => {
    const bytes = document([
      element(0x02, '7911', string('JT')),
      element(0x02, '7400', string('Telefónica')),
    ]);
    expect([...readStringDocument(bytes, 'test')]).toEqual([
      ['7911', 'JT'],
      ['7400', 'Telefónica'],
    ]);
  });

  it('refuses anything but strings, and truncated files', () => {
    const int32 = Buffer.alloc(4);
    expect(() => readStringDocument(document([element(0x10, '7911', int32)]), 'test')).toThrow(
      /element type 16/,
    );
    const whole = document([element(0x02, '7911', string('JT'))]);
    expect(() => readStringDocument(whole.subarray(0, whole.length - 3), 'test')).toThrow(/length header/);
  });
});
