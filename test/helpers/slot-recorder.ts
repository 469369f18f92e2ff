import { Redis, type Command } from 'ioredis';

/**
 * The hash slot of a key on a Redis Cluster: CRC16 (XMODEM) of the key, or of its hash tag (the
 * first `{...}` with something inside), modulo 16384, as the Redis Cluster specification gives it.
 */
export function keySlot(key: string | Buffer): number {
  let bytes = Buffer.isBuffer(key) ? key : Buffer.from(key);
  const open = bytes.indexOf('{');
  if (open !== -1) {
    const close = bytes.indexOf('}', open + 1);
    if (close > open + 1) bytes = bytes.subarray(open + 1, close);
  }
  let crc = 0;
  for (const b of bytes) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

/** One command with several keys, or one MULTI ... EXEC, as sent on one connection. */
export interface Touch {
  what: string;
  keys: string[];
}

/**
 * Records, while installed, every command with more than one key (EVAL/EVALSHA of the scripts
 * included) and every MULTI ... EXEC that any ioredis connection of this process sends, single
 * server or cluster node alike (a cluster client sends through one connection per node). What
 * `crossSlot` returns would be refused by a Redis Cluster (CROSSSLOT) or break its atomicity.
 */
export class SlotRecorder {
  readonly touches: Touch[] = [];
  private readonly original = Redis.prototype.sendCommand;
  private readonly open = new WeakMap<object, Touch>();

  install(): this {
    const original = this.original;
    const open = this.open;
    const touches = this.touches;
    Redis.prototype.sendCommand = function (this: Redis, command: Command, ...rest: unknown[]) {
      const send = () => (original as (...a: unknown[]) => unknown).call(this, command, ...rest) as never;
      // Sent before the connection is ready, a command is queued and sent through here again.
      if (this.status !== 'ready') return send();
      const name = command.name.toLowerCase();
      const keys = command.getKeys().map(String);
      const tx = open.get(this);
      if (name === 'multi') open.set(this, { what: 'multi', keys: [] });
      else if (name === 'exec' || name === 'discard') {
        if (tx) touches.push({ what: tx.what, keys: tx.keys });
        open.delete(this);
      } else if (tx) {
        tx.what += ` ${name}`;
        tx.keys.push(...keys);
      } else if (keys.length > 1) touches.push({ what: name, keys });
      return send();
    } as typeof original;
    return this;
  }

  uninstall(): void {
    Redis.prototype.sendCommand = this.original;
  }

  /** The recorded touches whose keys fall in more than one slot. */
  crossSlot(): Touch[] {
    return this.touches.filter((t) => new Set(t.keys.map(keySlot)).size > 1);
  }
}
