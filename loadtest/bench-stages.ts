/**
 * A bench as a list of stages that publishes only whole runs: its files are held in memory until
 * every stage has succeeded, then each is written to a temporary sibling and renamed into place.
 * A stage that throws (a failed request, a child bench exiting non-zero) ends the run with exit
 * code 1 and nothing written, so a page can never lack a figure without saying why.
 */
import { spawnSync } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';

export interface Stage {
  name: string;
  run: () => Promise<void> | void;
}

/** The files one run publishes, written together once the run is whole. */
export class Publication {
  private readonly files = new Map<string, string | Uint8Array>();

  add(path: string, content: string | Uint8Array): void {
    this.files.set(path, content);
  }

  /** Every file to `<path>.partial-<pid>` first, then renamed: no reader sees half a file. */
  commit(): string[] {
    const staged = [...this.files].map(([path, content]) => {
      const tmp = `${path}.partial-${process.pid}`;
      writeFileSync(tmp, content);
      return [tmp, path] as const;
    });
    for (const [tmp, path] of staged) renameSync(tmp, path);
    return staged.map(([, path]) => path);
  }
}

/**
 * Runs the stages in order and commits the publication after the last; returns the exit code.
 * The first failure stops the run: later stages would measure on top of a broken one.
 */
export async function runStages(
  stages: Stage[],
  publication: Publication,
  log: (message: string) => void,
): Promise<number> {
  for (const stage of stages) {
    log(`stage: ${stage.name}`);
    try {
      await stage.run();
    } catch (err) {
      log(
        `stage "${stage.name}" failed, nothing published: ${err instanceof Error ? err.stack : String(err)}`,
      );
      return 1;
    }
  }
  for (const path of publication.commit()) log(`wrote ${path}`);
  return 0;
}

/**
 * Runs a child bench (stdout captured, stderr passed through) and returns its stdout; throws when
 * it exits non-zero or by a signal, so its stage fails instead of publishing without its figure.
 */
export function runChildBench(args: string[], cwd: string): string {
  const r = spawnSync(process.execPath, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0)
    throw new Error(
      `${args.join(' ')} exited ${r.status ?? r.signal}${r.error ? `: ${r.error.message}` : ''}`,
    );
  return r.stdout;
}
