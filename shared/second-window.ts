/** Counts per key in the current whole second; the map is dropped when the second changes. */
export class SecondWindow {
  private second = -1;
  private counts = new Map<string, number>();
  private readonly maxTracked: number;

  constructor(maxTracked: number) {
    this.maxTracked = maxTracked;
  }

  private roll(now: number): void {
    const second = Math.floor(now / 1000);
    if (second !== this.second) {
      this.second = second;
      this.counts = new Map();
    }
  }

  count(key: string, now: number): number {
    this.roll(now);
    return this.counts.get(key) ?? 0;
  }

  hit(key: string, now: number): number {
    this.roll(now);
    const n = (this.counts.get(key) ?? 0) + 1;
    if (n > 1 || this.counts.size < this.maxTracked) this.counts.set(key, n);
    return n;
  }
}
