/**
 * A compact binary layout for typed arrays plus a JSON header, shared by the resolution cache on
 * disk and the capability snapshots in Redis. Decoding makes views into the input buffer where
 * they are aligned (a large buffer read from a file or Redis starts its own memory, so in
 * practice always): no copy of tens of megabytes on an API node's event loop. An unaligned
 * section is copied.
 *
 * Layout: magic (u32 LE), header length (u32 LE), JSON header, then each typed array 8-aligned.
 * Arrays are in the writer's byte order; writers and readers are x86-64/arm64 (little-endian).
 */

export type Table = Uint8Array | Uint16Array | Uint32Array | Float64Array | BigUint64Array;
const TYPES = { Uint8Array, Uint16Array, Uint32Array, Float64Array, BigUint64Array } as const;
type TypeName = keyof typeof TYPES;

interface Section {
  name: string;
  type: TypeName;
  offset: number;
  length: number;
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;

export function encodeSections(magic: number, header: object, arrays: Record<string, Table>): Buffer {
  const sections: Section[] = [];
  let size = 0;
  for (const [name, array] of Object.entries(arrays)) {
    sections.push({ name, type: array.constructor.name as TypeName, offset: size, length: array.length });
    size += align8(array.byteLength);
  }
  const json = Buffer.from(JSON.stringify({ ...header, sections }));
  const base = align8(8 + json.length);
  const out = Buffer.alloc(base + size);
  out.writeUInt32LE(magic, 0);
  out.writeUInt32LE(json.length, 4);
  json.copy(out, 8);
  for (const section of sections) {
    const array = arrays[section.name]!;
    out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), base + section.offset);
  }
  return out;
}

export interface Decoded {
  header: Record<string, unknown>;
  arrays: Map<string, Table>;
}

/** The header and arrays, or undefined when the bytes are not of this layout or are truncated. */
export function decodeSections(magic: number, bytes: Buffer): Decoded | undefined {
  if (bytes.length < 8 || bytes.readUInt32LE(0) !== magic) return undefined;
  const jsonLength = bytes.readUInt32LE(4);
  if (8 + jsonLength > bytes.length) return undefined;
  let header: Record<string, unknown> & { sections?: unknown };
  try {
    header = JSON.parse(bytes.toString('utf8', 8, 8 + jsonLength));
  } catch {
    return undefined;
  }
  if (!Array.isArray(header.sections)) return undefined;
  const base = align8(8 + jsonLength);
  const arrays = new Map<string, Table>();
  for (const { name, type, offset, length } of header.sections as Section[]) {
    const Type = TYPES[type];
    if (!Type) return undefined;
    const start = base + offset;
    const end = start + length * Type.BYTES_PER_ELEMENT;
    if (end > bytes.length) return undefined;
    const at = bytes.byteOffset + start;
    if (at % Type.BYTES_PER_ELEMENT === 0)
      arrays.set(name, new Type(bytes.buffer as ArrayBuffer, at, length));
    else {
      const copy = new Uint8Array(end - start);
      copy.set(bytes.subarray(start, end));
      arrays.set(name, new Type(copy.buffer));
    }
  }
  return { header, arrays };
}

/** The array `name` of type `type`; throws naming `what` when it is missing or of another type. */
export function take<T extends Table>(
  decoded: Decoded,
  name: string,
  type: new (...args: never[]) => T,
  what: string,
): T {
  const array = decoded.arrays.get(name);
  if (!(array instanceof type)) throw new Error(`${what}: section ${name} is missing`);
  return array;
}
