import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** USER_HZ: the unit of /proc's CPU times, 100 on Linux. */
const TICK_S = 0.01;

/** CPU ticks a process spent itself (utime + stime); 0 once it is gone. */
export function processTicks(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Not cutime/cstime: a reaped child's time (a SIGKILLed node, a script) would land on its
    // parent in one lump.
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0;
  }
}

/** Ticks of the whole machine since boot: busy (neither idle nor iowait) and in total. */
export function machineTicks(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3]! - f[4]!, total };
}

export interface PhaseCpuRow {
  phase: string;
  seconds: number;
  /** Cores each named process used on average over the phase. */
  cores: Record<string, number>;
  /** Cores the whole machine used: every process on it, ours or not. */
  machineCores: number;
  /** How late this process's own event loop ran, p99: part of every latency it measures. */
  loopDelayP99Ms: number;
}

/**
 * Where the cores went in each phase of a bench: each named process (`roles` gives their pids,
 * read again at each phase boundary since servers restart) and the whole machine, from /proc,
 * plus the calling process's event-loop lateness. A phase whose p99 rises while other tenants or
 * a restarting server hold the cores is the machine's, not the code's.
 */
export class PhaseCpu {
  readonly rows: PhaseCpuRow[] = [];
  private readonly loopDelay = monitorEventLoopDelay({ resolution: 10 });
  private readonly roles: () => Record<string, number | undefined>;
  private phase: string;
  private start: { at: number; ticks: Map<number, number>; machine: { busy: number; total: number } };

  constructor(roles: () => Record<string, number | undefined>, firstPhase: string) {
    this.roles = roles;
    this.loopDelay.enable();
    this.phase = firstPhase;
    this.start = this.snapshot(performance.now());
  }

  private snapshot(at: number) {
    const ticks = new Map<number, number>();
    for (const pid of Object.values(this.roles())) if (pid) ticks.set(pid, processTicks(pid));
    return { at, ticks, machine: machineTicks() };
  }

  /** Closes the current phase's row and starts `next`. */
  enter(next: string): void {
    const now = performance.now();
    const seconds = (now - this.start.at) / 1000;
    const machine = machineTicks();
    const cores: Record<string, number> = {};
    for (const [role, pid] of Object.entries(this.roles())) {
      // A process started during the phase counts from zero; one already gone is left out.
      const ticks = processTicks(pid);
      if (pid && ticks) cores[role] = ((ticks - (this.start.ticks.get(pid) ?? 0)) * TICK_S) / seconds;
    }
    this.rows.push({
      phase: this.phase,
      seconds,
      cores,
      machineCores:
        ((machine.busy - this.start.machine.busy) / (machine.total - this.start.machine.total)) *
        availableParallelism(),
      loopDelayP99Ms: this.loopDelay.percentile(99) / 1e6,
    });
    this.loopDelay.reset();
    this.phase = next;
    this.start = { ...this.snapshot(now), machine };
  }

  /** The rows as a markdown table, phases for which `keep` is false left out. */
  table(keep: (phase: string) => boolean): string {
    const names = Object.keys(this.roles());
    const rows = this.rows
      .filter((r) => keep(r.phase))
      .map(
        (r) =>
          `| ${r.phase} | ${r.seconds.toFixed(1)} | ${r.machineCores.toFixed(2)} | ${names.map((n) => (r.cores[n] ?? 0).toFixed(2)).join(' | ')} | ${r.loopDelayP99Ms.toFixed(0)} |`,
      );
    return `| phase | s | machine | ${names.join(' | ')} | generator late p99 ms |
|---|---|---|${names.map(() => '---|').join('')}---|
${rows.join('\n')}`;
  }
}
