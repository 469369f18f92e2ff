/**
 * What a refresh does to a serving node, on demand: for loadtest/stall-finder.ts, the snapshots
 * of the shared Redis are copied under a private key prefix (`copySnapshots`), a node is pointed
 * at it, and `node loadtest/snapshot-swaps.ts <prefix> <delay s>...` later publishes a new version
 * of the routing table (ip_network_type, 24 MB) and of the Tor exit list at each delay, as the
 * refresher's daily and hourly runs do. The table is re-encoded by this checkout's code, so a
 * node of this checkout loads what this checkout's refresher would publish. The private prefix
 * keeps other users of the shared stack from loading (and paying for) these versions.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createRedis, type Redis, type RedisClient } from '../shared/clients/redis.ts';
import { SnapshotStore, type SnapshotMeta } from '../shared/capabilities/store.ts';
import type { CapabilityName } from '../shared/capabilities/registry.ts';
import { decodeSnapshot } from '../shared/capabilities/snapshots.ts';
import { encode } from '../shared/capabilities/snapshot-format.ts';
import { decodeSections } from '../shared/resolution/codec.ts';
import { networkArrays, networkHeader } from '../shared/resolution/resolution-cache.ts';
import { rangeSetArrays } from '../shared/resolution/range-set.ts';
import { MAGIC } from '../shared/capabilities/snapshot-format.ts';

const NAMES: CapabilityName[] = [
  'ip_network_type',
  'caller_id_integrity',
  'ip_vpn_proxy',
  'ip_tor_exit',
  'ndc_range_risk',
  'reputation_ledger',
];

/** Copies every capability's current meta and blob from `from` to the prefix `to` (no announcement). */
export async function copySnapshots(redis: RedisClient, from: string, to: string): Promise<void> {
  const src = new SnapshotStore(redis, from);
  const dst = new SnapshotStore(redis, to);
  for (const name of NAMES) {
    const meta = await src.current(name);
    if (!meta) continue;
    if (name !== 'reputation_ledger') {
      const blob = await src.blob(name, meta.version);
      if (blob) await redis.set(dst.blobKey(name, meta.version), blob, 'EX', 3600);
    }
    await redis.set(dst.currentKey(name), JSON.stringify(meta), 'EX', 3600);
  }
}

/** Removes everything under `prefix`, a prefix of the finder's own: the copies and the swaps. */
export async function dropSnapshots(redis: Redis, prefix: string): Promise<void> {
  const keys: string[] = [];
  for await (const batch of redis.scanStream({ match: `${prefix}:*`, count: 1000 }))
    keys.push(...(batch as string[]));
  if (keys.length > 0) await redis.unlink(...keys);
}

/** The routing table re-encoded the way this checkout's refresher writes it. */
function reencodeNetworks(payload: Buffer): Buffer {
  const held = decodeSnapshot('ip_network_type', payload);
  const { sections: _s, asNames: _a, format: _f, ...header } = decodeSections(MAGIC, payload)!.header;
  return encode(
    { ...header, ...networkHeader(held.networks) },
    {
      ...networkArrays(held.networks),
      ...rangeSetArrays(held.hosting, 'hosting'),
      ...(held.allocated ? rangeSetArrays(held.allocated, 'allocated') : {}),
    },
  );
}

/** Publishes the current data of `name` again as a new version (announced, as a refresh does). */
async function republish(redis: RedisClient, store: SnapshotStore, name: CapabilityName): Promise<void> {
  const meta = (await store.current(name))!;
  const blob = (await store.blob(name, meta.version))!;
  const payload = name === 'ip_network_type' ? reencodeNetworks(blob) : blob;
  const next: SnapshotMeta = { ...meta, version: `${Date.now()}-swap`, previous: meta.version };
  await store.publishBlob(name, next, payload, meta);
  await redis.expire(store.blobKey(name, next.version), 3600);
}

async function main(prefix: string, delaysS: number[]): Promise<void> {
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
    connectionName: 'stall-finder-swaps',
    failFast: false,
  });
  const store = new SnapshotStore(redis, prefix);
  let at = 0;
  for (const d of delaysS) {
    await sleep((d - at) * 1000);
    at = d;
    for (const name of ['ip_network_type', 'ip_tor_exit'] as const) await republish(redis, store, name);
    console.error(
      `[swaps] published new versions of ip_network_type and ip_tor_exit under ${prefix} at +${d} s`,
    );
  }
  redis.disconnect();
}

if (import.meta.main) await main(process.argv[2]!, process.argv.slice(3).map(Number));
