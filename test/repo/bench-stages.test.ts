import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Publication, runChildBench, runStages, type Stage } from '../../loadtest/bench-stages.ts';

// `npm run bench` publishes through these: a failing stage must leave no page and no chart.
describe('bench stages', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'frs-bench-stages-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const publishing = (publication: Publication): Stage => ({
    name: 'render',
    run: () => {
      publication.add(join(dir, 'bench.md'), '# page');
      publication.add(join(dir, 'bench.png'), new Uint8Array([1, 2, 3]));
    },
  });

  it('writes every file when every stage succeeds', async () => {
    const publication = new Publication();
    const code = await runStages(
      [{ name: 'ok', run: async () => {} }, publishing(publication)],
      publication,
      () => {},
    );
    expect(code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['bench.md', 'bench.png']);
    expect(readFileSync(join(dir, 'bench.md'), 'utf8')).toBe('# page');
  });

  it('exits non-zero and writes nothing when a stage throws, even after files were added', async () => {
    const publication = new Publication();
    const ran: string[] = [];
    const code = await runStages(
      [
        publishing(publication),
        {
          name: 'audit sink',
          run: () => {
            throw new Error('ZodError: template is null');
          },
        },
        { name: 'after', run: () => void ran.push('after') },
      ],
      publication,
      () => {},
    );
    expect(code).toBe(1);
    expect(ran).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('fails a stage whose child bench exits non-zero', async () => {
    const publication = new Publication();
    const child: Stage = {
      name: 'child',
      run: () => void runChildBench(['-e', 'console.log("{}"); process.exit(3)'], dir),
    };
    expect(await runStages([publishing(publication), child], publication, () => {})).toBe(1);
    expect(existsSync(join(dir, 'bench.md'))).toBe(false);
    expect(runChildBench(['-e', 'console.log("ok")'], dir)).toBe('ok\n');
  });
});
