/** A figure measured in several rounds: its median (what budgets are judged on) and its spread. */
export interface Figure {
  median: number;
  min: number;
  max: number;
  rounds: number[];
}

export function figure(rounds: number[]): Figure {
  if (rounds.length === 0) throw new Error('a figure needs at least one round');
  const sorted = [...rounds].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)!, rounds };
}

/** `443 (423–512)`: the median, then min–max over the rounds. */
export function show(f: Figure, digits = 0): string {
  const n = (x: number) => x.toFixed(digits);
  return `${n(f.median)} (${n(f.min)}–${n(f.max)})`;
}
