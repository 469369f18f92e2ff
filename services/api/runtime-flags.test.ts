import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_NODE_FLAGS, runtimeFlagsFor } from './runtime-flags.ts';

const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The arguments before the entry point in a `node ... services/api/main.ts` command. */
function flagsBefore(command: string[]): string[] {
  const entry = command.indexOf('services/api/main.ts');
  expect(entry, `no API entry point in ${JSON.stringify(command)}`).toBeGreaterThan(0);
  expect(command[0]).toBe('node');
  return command.slice(1, entry);
}

describe("the API node's runtime flags", () => {
  it('are on every launcher that names them literally', () => {
    const dockerCmd = /^CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1];
    expect(flagsBefore(JSON.parse(dockerCmd!) as string[])).toEqual(API_NODE_FLAGS);

    const composeApi = /^ {2}api-1: &api\n(?:(?! {2}\S).*\n)*? {4}command: (\[.*\])$/m.exec(
      read('docker-compose.yml'),
    );
    expect(flagsBefore(JSON.parse(composeApi![1]!) as string[])).toEqual(API_NODE_FLAGS);

    const script = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.api!;
    expect(flagsBefore(script.split(' '))).toEqual(API_NODE_FLAGS);
  });

  it('are given to the API alone', () => {
    expect(runtimeFlagsFor('services/api/main.ts')).toEqual(API_NODE_FLAGS);
    expect(runtimeFlagsFor('/srv/frs/services/api/main.ts')).toEqual(API_NODE_FLAGS);
    for (const other of [
      'services/audit-sink/main.ts',
      'services/refresher/main.ts',
      'services/portal/main.ts',
    ])
      expect(runtimeFlagsFor(other)).toEqual([]);
  });
});
