/**
 * Names what ran during each event-loop stall of a V8 .cpuprofile (loadtest/stall-finder.ts).
 * A stall is a run of consecutive samples in which the main thread never went idle for longer
 * than `minUs`: no timer, no socket callback could run in between, which is exactly what the
 * loop-delay monitor sees as one delay. Each stall is described by where its time went: the
 * stages of loadtest/profile-stage-rules.ts, the project or package frames that spent it, and the
 * callback it ran under (the outermost frame of this project), which is what to change.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CpuProfile, ProfileNode } from './cpuprofile-stages.ts';

export interface Stall {
  /** µs from the window's start, on the profile's clock. */
  atUs: number;
  durationUs: number;
  /** Of which in the garbage collector (the collector's own samples). */
  gcUs: number;
  /**
   * Of which the process had no core: gaps between samples far longer than the interval, which
   * happen only when the profiler's thread was not scheduled either (another process ran), and,
   * for a stall the probe saw, idle samples (the thread woken for the overdue timer, not yet run).
   */
  offCoreUs: number;
  /** µs per "what": frames of this project or a package (innermost), GC, V8 or Node. */
  by: [string, number][];
  /** µs per outermost project frame: the callback the work ran under. */
  under: [string, number][];
}

/** This checkout's files as the profile names them, shortened to their path in the repository. */
const ROOT = pathToFileURL(join(import.meta.dirname, '..')).href + '/';

/** A short name for a frame: `services/api/x.ts:fn` or `pkg:name` or Node's own. */
export function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const fn = functionName || '(anonymous)';
  if (fn.startsWith('(')) return fn;
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return `pkg:${pkg[1]}`;
  if (url.startsWith('file://')) return `${url.replace(ROOT, '')}:${fn}:${lineNumber + 1}`;
  return `node:${fn}`;
}

const isProject = (n: ProfileNode) =>
  n.callFrame.url.startsWith('file://') && !n.callFrame.url.includes('/node_modules/');

/** For every profile node, the innermost "what" and the outermost project frame on its stack. */
function labels(profile: CpuProfile): Map<number, { what: string; under: string }> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const out = new Map<number, { what: string; under: string }>();
  for (const n of profile.nodes) {
    const frames: ProfileNode[] = [];
    for (let cur: number | undefined = n.id; cur !== undefined; cur = parent.get(cur))
      frames.push(byId.get(cur)!);
    // The innermost frame that is this project's or a package's; else Node's or V8's own.
    const inner = frames.find((f) => f.callFrame.url.startsWith('file://')) ?? n;
    const outer = [...frames].reverse().find(isProject);
    const rootCallback = frames.at(-2);
    out.set(n.id, {
      what: frameName(inner),
      under: outer ? frameName(outer) : rootCallback ? frameName(rootCallback) : '(none)',
    });
  }
  return out;
}

const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);

/** What the samples of one stretch add up to. */
class Tally {
  readonly from: number;
  to: number;
  gc = 0;
  off = 0;
  readonly by = new Map<string, number>();
  readonly under = new Map<string, number>();

  constructor(from: number) {
    this.from = from;
    this.to = from;
  }

  /** One sample standing for [t, next). */
  add(
    node: ProfileNode,
    label: { what: string; under: string },
    t: number,
    next: number,
    intervalUs: number,
  ) {
    this.to = next;
    // Beyond three intervals, a sample's time is time the process had no core.
    this.off += Math.max(0, next - t - 3 * intervalUs);
    if (node.callFrame.functionName === '(garbage collector)') this.gc += next - t;
    this.by.set(label.what, (this.by.get(label.what) ?? 0) + (next - t));
    this.under.set(label.under, (this.under.get(label.under) ?? 0) + (next - t));
  }

  stall(originUs: number, durationUs = this.to - this.from): Stall {
    return {
      atUs: this.from - originUs,
      durationUs,
      gcUs: this.gc,
      offCoreUs: this.off,
      by: top(this.by, 4),
      under: top(this.under, 3),
    };
  }
}

/** Each sample with the time it stands for (until the next sample), within [fromUs, toUs). */
function* samplesIn(profile: CpuProfile, fromUs: number, toUs: number) {
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    const next = i + 1 < profile.samples.length ? t + profile.timeDeltas[i + 1]! : profile.endTime;
    if (next <= fromUs || t >= toUs) continue;
    yield { id: profile.samples[i]!, t, next };
  }
}

/**
 * Every stretch of at least `minUs` within [fromUs, toUs) with no idle sample: an idle sample is
 * the thread waiting in the loop's poll. A stretch may span several loop turns (callbacks that
 * yield between slices still leave no idle sample), so it bounds the stalls from above; the
 * probe's own stalls (`explainStalls`) are the loop's.
 */
export function findStalls(
  profile: CpuProfile,
  fromUs: number,
  toUs: number,
  minUs: number,
  intervalUs: number,
): Stall[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const label = labels(profile);
  const stalls: Stall[] = [];
  let open: Tally | undefined;
  const close = () => {
    if (open && open.to - open.from >= minUs) stalls.push(open.stall(fromUs));
    open = undefined;
  };
  for (const { id, t, next } of samplesIn(profile, fromUs, toUs)) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') {
      close();
      continue;
    }
    open ??= new Tally(t);
    open.add(node, label.get(id)!, t, next, intervalUs);
  }
  close();
  return stalls;
}

/**
 * What ran during each stall the runtime probe saw: `[endUs, ms]`, the time (on the profile's
 * clock) its late timer finally ran and how late it was. `originUs` is where `atUs` counts from.
 */
export function explainStalls(
  profile: CpuProfile,
  stalls: readonly (readonly [number, number])[],
  originUs: number,
  intervalUs: number,
): Stall[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const label = labels(profile);
  return stalls.map(([endUs, ms]) => {
    const from = endUs - ms * 1000;
    const tally = new Tally(from);
    for (const { id, t, next } of samplesIn(profile, from, endUs)) {
      const node = byId.get(id)!;
      const [a, b] = [Math.max(t, from), Math.min(next, endUs)];
      // Idle while its timer was overdue: the thread was woken but not given a core yet.
      if (node.callFrame.functionName === '(idle)') tally.off += b - a;
      else tally.add(node, label.get(id)!, a, b, intervalUs);
    }
    return tally.stall(originUs, ms * 1000);
  });
}

/** One line per stall, for a log or a note. */
export function describeStall(s: Stall): string {
  const pct = (us: number) => `${((us / s.durationUs) * 100).toFixed(0)} %`;
  const ms = (us: number) => (us / 1000).toFixed(1);
  return (
    `${ms(s.durationUs)} ms at +${(s.atUs / 1e6).toFixed(2)} s (GC ${ms(s.gcUs)}, no core ${ms(s.offCoreUs)} ms): ` +
    s.by.map(([w, us]) => `${w} ${pct(us)}`).join(', ') +
    `; under ${s.under.map(([w, us]) => `${w} ${pct(us)}`).join(', ')}`
  );
}
