/** CPU time of server processes from /proc, for CPU-per-request figures in the benches. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU time (user + system, µs) of processes and their children (a cluster's workers), from /proc. */
export function cpuMicros(pids: number[]): number {
  let ticks = 0;
  const seen = new Set<number>();
  const visit = (pid: number) => {
    if (seen.has(pid)) return;
    seen.add(pid);
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
      for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' '))
        if (child.trim()) visit(Number(child));
    } catch {
      // exited meanwhile
    }
  };
  for (const pid of pids) visit(pid);
  return (ticks * 1e6) / CLK_TCK;
}
