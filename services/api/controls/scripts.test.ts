import { describe, expect, it } from 'vitest';
import { COMMANDS, scriptSource } from './scripts.ts';

/** The highest KEYS[n] a script's code reads (comments left out). */
function keysRead(lua: string): number {
  const code = lua
    .split('\n')
    .map((line) => line.replace(/--.*$/, ''))
    .join('\n');
  return Math.max(0, ...[...code.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1])));
}

describe("the controls' script commands", () => {
  it('give each script as many keys as its code reads, in its widest form', () => {
    const widest = new Map<string, number>();
    for (const c of COMMANDS) widest.set(c.script, Math.max(widest.get(c.script) ?? 0, c.keys));
    for (const [script, keys] of widest) expect(keysRead(scriptSource(script)), script).toBe(keys);
  });

  it('name each command once', () => {
    expect(new Set(COMMANDS.map((c) => c.name)).size).toBe(COMMANDS.length);
  });

  it('count the keys a script reads, not those its comments name', () => {
    expect(keysRead('-- KEYS[3] is optional\nreturn redis.call("GET", KEYS[1]) -- KEYS[2]\n')).toBe(1);
  });
});
