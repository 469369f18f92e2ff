import { describe, expect, it } from 'vitest';
import { PublisherMachine, type PublisherState } from './audit-publisher-state.ts';

const OPTS = { stallMs: 1_000, maxQueued: 10, probeMs: 500, journalAfterMs: 5 };

/** A machine on a clock the test moves, brought to `state` by the events that lead there. */
function machineIn(state: PublisherState): { m: PublisherMachine; clock: { now: number } } {
  const clock = { now: 0 };
  const m = new PublisherMachine(OPTS, () => clock.now);
  m.handle({ type: 'start' });
  if (state === 'replaying' || state === 'direct') m.handle({ type: 'connected' });
  if (state === 'direct') m.handle({ type: 'replay-done' });
  if (state === 'closing') {
    m.handle({ type: 'connected' });
    m.handle({ type: 'close' });
  }
  expect(m.state).toBe(state);
  return { m, clock };
}

describe('PublisherMachine transitions', () => {
  it('start: spilling, the first probe at once', () => {
    const m = new PublisherMachine(OPTS, () => 0);
    expect(m.handle({ type: 'start' })).toEqual({
      state: 'spilling',
      actions: [{ type: 'probe', afterMs: 0 }],
    });
    expect(m.live).toBe(false);
  });

  it('spilling + connected: replaying, adopting the producer and sealing the journal', () => {
    const { m } = machineIn('spilling');
    expect(m.handle({ type: 'connected' })).toEqual({
      state: 'replaying',
      actions: [{ type: 'adopt-producer' }, { type: 'seal-journal' }],
      transition: { from: 'spilling', why: 'kafka reachable' },
    });
    expect(m.live).toBe(true);
  });

  it('spilling + connect-failed: spilling, the next probe after probeMs', () => {
    const { m } = machineIn('spilling');
    expect(m.handle({ type: 'connect-failed' })).toEqual({
      state: 'spilling',
      actions: [{ type: 'probe', afterMs: 500 }],
    });
  });

  it('replaying + replay-done: direct', () => {
    const { m } = machineIn('replaying');
    expect(m.handle({ type: 'replay-done' })).toEqual({
      state: 'direct',
      actions: [],
      transition: { from: 'replaying', why: 'journal replayed' },
    });
    expect(m.live).toBe(true);
  });

  for (const from of ['replaying', 'direct'] as const) {
    it(`${from} + send-failed of this epoch: spilling, Kafka given up, probing, a new epoch`, () => {
      const { m } = machineIn(from);
      const epoch = m.epoch;
      m.handle({ type: 'send-started' });
      expect(m.handle({ type: 'send-failed', epoch, why: 'broker gone' })).toEqual({
        state: 'spilling',
        actions: [{ type: 'give-up-kafka' }, { type: 'probe', afterMs: 500 }],
        transition: { from, why: 'broker gone' },
      });
      expect(m.epoch).toBe(epoch + 1);
      expect(m.live).toBe(false);
      expect(m.sending).toBe(false);
    });

    it(`${from} + tick with a send unanswered beyond stallMs: spilling`, () => {
      const { m, clock } = machineIn(from);
      m.handle({ type: 'send-started' });
      clock.now += 1_001;
      expect(m.handle({ type: 'tick' })).toEqual({
        state: 'spilling',
        actions: [{ type: 'give-up-kafka' }, { type: 'probe', afterMs: 500 }],
        transition: { from, why: 'send unanswered' },
      });
    });

    it(`${from} + queued beyond maxQueued: spilling`, () => {
      const { m } = machineIn(from);
      expect(m.handle({ type: 'queued', waiting: 11 })).toEqual({
        state: 'spilling',
        actions: [{ type: 'give-up-kafka' }, { type: 'probe', afterMs: 500 }],
        transition: { from, why: 'too many records waiting' },
      });
    });
  }

  for (const from of ['spilling', 'replaying', 'direct'] as const) {
    it(`${from} + close: closing, probe cancelled and replay stopped`, () => {
      const { m } = machineIn(from);
      const live = m.live;
      expect(m.handle({ type: 'close' })).toEqual({
        state: 'closing',
        actions: [{ type: 'stop-background' }],
        transition: { from, why: 'shutdown' },
      });
      // A closing publisher still finishes its sends on the producer it has.
      expect(m.live).toBe(live);
    });
  }

  it('closing + deadline: Kafka given up, nothing live, a new epoch, still closing', () => {
    const { m } = machineIn('closing');
    const epoch = m.epoch;
    expect(m.handle({ type: 'deadline' })).toEqual({
      state: 'closing',
      actions: [{ type: 'give-up-kafka' }],
    });
    expect(m.live).toBe(false);
    expect(m.epoch).toBe(epoch + 1);
  });
});

describe('PublisherMachine events that change nothing', () => {
  it('a tick within stallMs, or with no send in flight, keeps Kafka', () => {
    const { m, clock } = machineIn('direct');
    clock.now += 60_000;
    expect(m.handle({ type: 'tick' })).toEqual({ state: 'direct', actions: [] });
    m.handle({ type: 'send-started' });
    clock.now += 1_000;
    expect(m.handle({ type: 'tick' })).toEqual({ state: 'direct', actions: [] });
  });

  it('send-ok ends the send: no stall counted after it', () => {
    const { m, clock } = machineIn('direct');
    m.handle({ type: 'send-started' });
    expect(m.sending).toBe(true);
    m.handle({ type: 'send-ok', epoch: m.epoch });
    expect(m.sending).toBe(false);
    clock.now += 5_000;
    expect(m.handle({ type: 'tick' }).state).toBe('direct');
  });

  it('a send of an older epoch neither fails nor ends the current one', () => {
    const { m } = machineIn('direct');
    const old = m.epoch;
    m.handle({ type: 'send-failed', epoch: old, why: 'x' });
    m.handle({ type: 'connected' });
    m.handle({ type: 'send-started' });
    expect(m.handle({ type: 'send-failed', epoch: old, why: 'late' })).toEqual({
      state: 'replaying',
      actions: [],
    });
    m.handle({ type: 'send-ok', epoch: old });
    expect(m.sending).toBe(true);
  });

  it('records up to maxQueued keep Kafka', () => {
    const { m } = machineIn('direct');
    expect(m.handle({ type: 'queued', waiting: 10 })).toEqual({ state: 'direct', actions: [] });
  });

  it('closing ignores failures, stalls and overload: the deadline decides', () => {
    const { m, clock } = machineIn('closing');
    m.handle({ type: 'send-started' });
    clock.now += 5_000;
    expect(m.handle({ type: 'tick' })).toEqual({ state: 'closing', actions: [] });
    expect(m.handle({ type: 'queued', waiting: 1_000 })).toEqual({ state: 'closing', actions: [] });
    expect(m.handle({ type: 'send-failed', epoch: m.epoch, why: 'x' })).toEqual({
      state: 'closing',
      actions: [],
    });
    expect(m.live).toBe(true);
    expect(m.sending).toBe(false);
  });

  it('a connection nobody waits for any more is discarded', () => {
    for (const state of ['replaying', 'direct', 'closing'] as const) {
      const { m } = machineIn(state);
      expect(m.handle({ type: 'connected' })).toEqual({ state, actions: [{ type: 'discard-producer' }] });
    }
  });

  it('a failed probe once no longer spilling schedules no other', () => {
    const { m } = machineIn('closing');
    expect(m.handle({ type: 'connect-failed' })).toEqual({ state: 'closing', actions: [] });
  });

  it('replay-done outside replaying, close when closing, deadline before closing: nothing', () => {
    expect(machineIn('direct').m.handle({ type: 'replay-done' })).toEqual({ state: 'direct', actions: [] });
    expect(machineIn('spilling').m.handle({ type: 'replay-done' })).toEqual({
      state: 'spilling',
      actions: [],
    });
    expect(machineIn('closing').m.handle({ type: 'close' })).toEqual({ state: 'closing', actions: [] });
    expect(machineIn('direct').m.handle({ type: 'deadline' })).toEqual({ state: 'direct', actions: [] });
  });
});

describe('PublisherMachine lane decisions', () => {
  it('the Kafka lane: nothing unless live and idle; new records before replayed ones; drained at the end', () => {
    expect(machineIn('spilling').m.kafkaJob(5, [1])).toEqual({ type: 'none' });
    const { m } = machineIn('replaying');
    expect(m.kafkaJob(0, undefined)).toEqual({ type: 'none' }); // journal not sealed yet
    expect(m.kafkaJob(3, [7, 8])).toEqual({ type: 'send-live' });
    expect(m.kafkaJob(0, [7, 8])).toEqual({ type: 'replay', segment: 7 });
    expect(m.kafkaJob(0, [])).toEqual({ type: 'drained' });
    m.handle({ type: 'send-started' });
    expect(m.kafkaJob(3, [7])).toEqual({ type: 'none' });
    const direct = machineIn('direct').m;
    expect(direct.kafkaJob(0, [])).toEqual({ type: 'none' });
    expect(direct.kafkaJob(1, [])).toEqual({ type: 'send-live' });
  });

  it('the journal lane: while live a record is due after journalAfterMs, otherwise at once', () => {
    const { m, clock } = machineIn('direct');
    clock.now = 100;
    expect(m.journalDueBefore()).toBe(95);
    m.handle({ type: 'send-failed', epoch: m.epoch, why: 'x' });
    expect(m.journalDueBefore()).toBe(Number.POSITIVE_INFINITY);
  });
});
