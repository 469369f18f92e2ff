import { describe, expect, it } from 'vitest';
import { parseMemoryInfo } from './redis-memory.ts';

describe('INFO memory', () => {
  it('reads used_memory and maxmemory, not their look-alikes', () => {
    const info =
      '# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\nmaxmemory:2147483648\r\nmaxmemory_human:2.00G\r\n';
    expect(parseMemoryInfo(info)).toEqual({ used: 1_048_576, max: 2_147_483_648 });
  });
});
