/**
 * How fast the shared machine is right now, measured beside the bench's steps: the latency of a
 * dependent random read over 128 MiB, and the time of a small compute loop (a JSON round trip of
 * a small object, the kind of work (a) and (b) do).
 *
 * Why memory: on this machine class (a KVM guest with 4 KiB pages) a random read that misses the
 * TLB cost from 0.9 to 15 µs within minutes, while the compute loop moved less than 2x
 * (docs/performance.md, "What moves between runs"). A request path that reads more memory per
 * request slows more when reads are slow, so (c)/(d) moves with this figure, and a bench page
 * without it cannot say which kind of machine its ratios were measured on.
 *
 * As a module: `MachineProbe` keeps one child process holding the array (built once, ~1 s), idle
 * between measurements. As a script (the child): answers 'machine-probe:measure:<ms>' with
 * `{ readNs, computeNs }` over that many milliseconds, half each.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface MachineState {
  /** One dependent random read over 128 MiB, ns. */
  readNs: number;
  /** One JSON parse and stringify of a small object, ns. */
  computeNs: number;
}

const ENTRIES = 32 * 1024 * 1024; // 128 MiB of Int32: far past the caches and the TLB's reach

export class MachineProbe {
  private child: ChildProcess | undefined;

  async start(): Promise<void> {
    this.child = fork(fileURLToPath(import.meta.url), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    await this.ask('machine-probe:ready', 60_000);
  }

  /** Measures for `ms` milliseconds (the machine's two cores are otherwise idle meanwhile). */
  measure(ms = 400): Promise<MachineState> {
    return this.ask(`machine-probe:measure:${ms}`, ms + 10_000) as Promise<MachineState>;
  }

  stop(): void {
    this.child?.kill('SIGTERM');
    this.child = undefined;
  }

  private ask(message: string, timeoutMs: number): Promise<unknown> {
    const child = this.child;
    if (!child) return Promise.reject(new Error('machine probe not started'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.off('message', onMessage);
        reject(new Error(`machine probe: no answer to ${message}`));
      }, timeoutMs);
      const onMessage = (m: unknown) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(m);
      };
      child.on('message', onMessage);
      if (message !== 'machine-probe:ready') child.send(message);
    });
  }
}

/** One cycle through every entry in random order (Sattolo), so no read can be predicted or cached. */
function randomCycle(n: number): Int32Array {
  const next = new Int32Array(n);
  for (let i = 0; i < n; i++) next[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * i);
    const t = next[i]!;
    next[i] = next[j]!;
    next[j] = t;
  }
  return next;
}

function child(): void {
  const next = randomCycle(ENTRIES);
  let at = 0;
  let sink = 0;
  const readNs = (ms: number): number => {
    const t0 = performance.now();
    let reads = 0;
    while (performance.now() - t0 < ms) {
      for (let k = 0; k < 256; k++) at = next[at]!;
      reads += 256;
    }
    return ((performance.now() - t0) * 1e6) / reads;
  };
  const computeNs = (ms: number): number => {
    const t0 = performance.now();
    let n = 0;
    while (performance.now() - t0 < ms) {
      for (let k = 0; k < 64; k++)
        sink += JSON.stringify(JSON.parse(`{"n":${n + k},"s":"probe","a":[1,2,3]}`)).length;
      n += 64;
    }
    return ((performance.now() - t0) * 1e6) / n;
  };
  readNs(50);
  computeNs(50);
  process.on('message', (m) => {
    const ms = Number(String(m).split(':')[2] ?? 400);
    const state: MachineState = { computeNs: computeNs(ms / 2), readNs: readNs(ms / 2) };
    process.send!({ ...state, sink: sink % 2 });
  });
  process.on('disconnect', () => process.exit(0));
  process.send!('ready');
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) child();
