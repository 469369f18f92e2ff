/** Reading a service's Prometheus text exposition in tests. */

export interface Scrape {
  /** Metric family name -> type, from the `# TYPE` lines. */
  types: Map<string, string>;
  /** Every sample: name, labels, value. */
  samples: { name: string; labels: Record<string, string>; value: number }[];
}

export function parseExposition(text: string): Scrape {
  const types = new Map<string, string>();
  const samples: Scrape['samples'] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return { types, samples };
}

export async function scrape(url: string): Promise<Scrape> {
  const res = await fetch(`${url}/metrics`);
  if (!res.ok) throw new Error(`${url}/metrics answered ${res.status}`);
  return parseExposition(await res.text());
}

/** The one sample of `name` whose labels include `labels`; undefined when absent. */
export function sample(s: Scrape, name: string, labels: Record<string, string> = {}): number | undefined {
  return s.samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v))
    ?.value;
}

/** Sum of every sample of `name`. */
export function total(s: Scrape, name: string): number {
  return s.samples.filter((x) => x.name === name).reduce((a, x) => a + x.value, 0);
}
