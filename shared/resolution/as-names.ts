/**
 * The name of every autonomous system, held in three typed arrays instead of a Map of ~90,000
 * strings: AS numbers sorted, and each name's UTF-8 bytes at an offset into one buffer.
 *
 * Why not a Map: a node decodes these from a 24 MB snapshot on its event loop. As a JSON header
 * (3.3 MB) parsed into a Map they cost 25-90 ms of one loop turn (a stall every request arriving
 * meanwhile waits out) and ~14 MiB of small heap objects that every mark-compact traverses. As
 * typed arrays they are views into the snapshot's own buffer: nothing to parse, nothing to mark.
 * A lookup decodes one name (a binary search and a short UTF-8 slice, well under a microsecond).
 */
import type { Table } from './codec.ts';

export class AsNames implements Iterable<[number, string]> {
  /** AS numbers, ascending, each once. */
  readonly asn: Uint32Array;
  /** Name i is text[offsets[i]..offsets[i + 1]); one more offset than names. */
  readonly offsets: Uint32Array;
  readonly text: Buffer;

  constructor(asn: Uint32Array, offsets: Uint32Array, text: Uint8Array) {
    if (offsets.length !== asn.length + 1 || (offsets.at(-1) ?? 0) > text.length)
      throw new Error('AS names: offsets do not match the numbers and text');
    this.asn = asn;
    this.offsets = offsets;
    // A view, not a copy: Buffer's native UTF-8 slicing without holding the bytes twice.
    this.text = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  }

  /** From pairs in any order; the first name given for a number is kept. */
  static from(pairs: Iterable<readonly [number, string]>): AsNames {
    const byAsn = new Map<number, string>();
    for (const [asn, name] of pairs) if (!byAsn.has(asn)) byAsn.set(asn, name);
    const numbers = Uint32Array.from(byAsn.keys()).sort();
    const ordered = Array.from(numbers, (n) => byAsn.get(n)!);
    // One encoding of all names: a Buffer per name is ~90,000 allocations. When every name is
    // ASCII (nearly always) each name's bytes are its characters; otherwise each is measured.
    const joined = ordered.join('');
    const text = Buffer.from(joined, 'utf8');
    const ascii = text.length === joined.length;
    const offsets = new Uint32Array(numbers.length + 1);
    for (let i = 0; i < ordered.length; i++)
      offsets[i + 1] = offsets[i]! + (ascii ? ordered[i]!.length : Buffer.byteLength(ordered[i]!, 'utf8'));
    return new AsNames(numbers, offsets, text);
  }

  get size(): number {
    return this.asn.length;
  }

  /** The row of `asn`, or -1. */
  private rowOf(asn: number): number {
    const numbers = this.asn;
    let lo = 0;
    let hi = numbers.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = numbers[mid]!;
      if (at === asn) return mid;
      if (at < asn) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private nameAt(row: number): string {
    return this.text.toString('utf8', this.offsets[row]!, this.offsets[row + 1]!);
  }

  get(asn: number): string | undefined {
    const row = this.rowOf(asn);
    return row < 0 ? undefined : this.nameAt(row);
  }

  has(asn: number): boolean {
    return this.rowOf(asn) >= 0;
  }

  *[Symbol.iterator](): IterableIterator<[number, string]> {
    for (let row = 0; row < this.asn.length; row++) yield [this.asn[row]!, this.nameAt(row)];
  }

  /** The arrays to store, by a stable name under `prefix`. */
  arrays(prefix: string): Record<string, Table> {
    return {
      [`${prefix}.asn`]: this.asn,
      [`${prefix}.offsets`]: this.offsets,
      [`${prefix}.text`]: new Uint8Array(this.text.buffer, this.text.byteOffset, this.text.byteLength),
    };
  }
}
