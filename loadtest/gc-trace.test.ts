import { describe, expect, it } from 'vitest';
import { summariseTrace } from './gc-trace.ts';

/**
 * Two lines of Node 24's `--trace-gc-nvp` from a pinned API node at saturation (2026-11-29),
 * each cut to the fields the summary reads and a few beside them; the log's other lines (the
 * node's own output) are ignored.
 */
const TRACE = [
  '[4289:0x2e4c7000:0] 32267 ms: pause=14.1 mutator=12810.8 gc=s scavenge=13.86 promoted=2109160',
  '{"level":40,"msg":"a line of the node\'s own"}',
  '[4289:0x2e4c7000:0] 15661 ms: pause=56.9 mutator=13804.0 gc=mc evacuate=51.3 evacuate.copy=35.5 mark=0.5 promoted=47115304',
].join('\n');

describe('summariseTrace', () => {
  it('reads the pause, the evacuation and the bytes evacuated of each full collection', () => {
    const s = summariseTrace(TRACE);
    expect(s.full).toEqual([{ pauseMs: 56.9, evacuateMs: 51.3, evacuatedMb: 47115304 / 2 ** 20 }]);
    expect(s.scavenges).toBe(1);
    expect(s.longestScavengeMs).toBe(14.1);
  });

  it('finds nothing in a log without collections', () => {
    expect(summariseTrace('listening\n')).toEqual({ full: [], scavenges: 0, longestScavengeMs: 0 });
  });
});
