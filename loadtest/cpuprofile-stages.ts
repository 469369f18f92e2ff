/**
 * Reads a V8 .cpuprofile (node --cpu-prof) and attributes the CPU time of a window of it to the
 * stages of loadtest/profile-stage-rules.ts: self time per sample, by its call stack.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GC_STAGE, NODE_STAGE, OTHER_STAGE, type StageRule } from './profile-stage-rules.ts';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
  positionTicks?: { line: number; ticks: number }[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Self time (µs) per profile node within [fromUs, toUs) of the profile's clock (CLOCK_MONOTONIC). */
export function selfTimes(profile: CpuProfile, fromUs: number, toUs: number): Map<number, number> {
  const self = new Map<number, number>();
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    // A sample stands for the time until the next one (the last: until the profile's end).
    const next = i + 1 < profile.samples.length ? t + profile.timeDeltas[i + 1]! : profile.endTime;
    const from = Math.max(t, fromUs);
    const to = Math.min(next, toUs);
    if (to > from) self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + (to - from));
  }
  return self;
}

/** The 1-based line of `text` in a file:// script, for `line` rules. */
function lineOf(url: string, text: string, cache: Map<string, string[]>): number | undefined {
  if (!url.startsWith('file://')) return undefined;
  let lines = cache.get(url);
  if (!lines) {
    lines = readFileSync(fileURLToPath(url), 'utf8').split('\n');
    cache.set(url, lines);
  }
  const i = lines.findIndex((l) => l.includes(text));
  return i < 0 ? undefined : i + 1;
}

const name = (node: ProfileNode) => node.callFrame.functionName;
const matches = (rule: StageRule, node: ProfileNode) =>
  rule.url.test(node.callFrame.url) && (rule.fn === undefined || rule.fn.test(node.callFrame.functionName));

export interface Attribution {
  /** µs of CPU per stage within the window (idle excluded). */
  byStage: Map<string, number>;
  /** The stage of each profile node's own time (for the flame graph's colours). */
  stageOf: Map<number, string>;
  /** Of Node's own time, how much ran under each other stage (its innermost caller a rule names). */
  nodeUnder: Map<string, number>;
  busyUs: number;
  idleUs: number;
}

export function attribute(
  profile: CpuProfile,
  rules: StageRule[],
  fromUs: number,
  toUs: number,
): Attribution {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stack = (id: number) => {
    const frames: ProfileNode[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur))
      frames.push(byId.get(cur)!);
    return frames; // innermost first
  };
  const sources = new Map<string, string[]>();
  const lineRules = rules.filter((r) => r.line !== undefined);
  const enclosing = rules.filter((r) => r.enclosing);
  const innermost = rules.filter((r) => !r.enclosing && r.line === undefined);
  const stageOf = new Map<number, string>();
  const stageOfNode = (node: ProfileNode): string => {
    const frames = stack(node.id);
    const name = node.callFrame.functionName;
    if (name === '(garbage collector)') return GC_STAGE;
    if (name === '(program)') return NODE_STAGE;
    for (const rule of enclosing) if (frames.some((f) => matches(rule, f))) return rule.stage;
    for (const f of frames) for (const rule of innermost) if (matches(rule, f)) return rule.stage;
    return OTHER_STAGE;
  };
  const callerStage = (node: ProfileNode): string => {
    for (const f of stack(node.id))
      for (const rule of innermost) if (rule.stage !== NODE_STAGE && matches(rule, f)) return rule.stage;
    return 'none (the HTTP server, timers, sockets themselves)';
  };
  const nodeUnder = new Map<string, number>();
  const byStage = new Map<string, number>();
  const add = (stage: string, us: number) => byStage.set(stage, (byStage.get(stage) ?? 0) + us);
  let busyUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfTimes(profile, fromUs, toUs)) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    busyUs += us;
    const stage = stageOfNode(node);
    stageOf.set(id, stage);
    // A line rule takes its line's share of the node's own time, the rest stays with the node's stage.
    const ticks = node.positionTicks ?? [];
    const total = ticks.reduce((s, p) => s + p.ticks, 0);
    let rest = us;
    for (const rule of lineRules) {
      if (total === 0 || stage === rule.stage || !matches(rule, node)) continue;
      const line = lineOf(node.callFrame.url, rule.line!, sources);
      const onLine = ticks.filter((p) => p.line === line).reduce((s, p) => s + p.ticks, 0);
      add(rule.stage, (us * onLine) / total);
      rest -= (us * onLine) / total;
    }
    add(stage, rest);
    if (stage === NODE_STAGE) {
      const caller =
        name(node) === '(program)'
          ? '(program): V8 and native code outside any JavaScript'
          : callerStage(node);
      nodeUnder.set(caller, (nodeUnder.get(caller) ?? 0) + us);
    }
  }
  return { byStage, stageOf, nodeUnder, busyUs, idleUs };
}

export function readProfile(path: string): CpuProfile {
  return JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
}
