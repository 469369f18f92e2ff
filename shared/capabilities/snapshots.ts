/**
 * A snapshot capability's build and decode, dispatched to its definition
 * (shared/capabilities/<name>/); the binary form they share is snapshot-format.ts.
 */
import { decodeSections } from '../resolution/codec.ts';
import type { SnapshotCodec } from './definition.ts';
import { CAPABILITY_DEFINITIONS, type CapabilityDefinitions } from './index.ts';
import { MAGIC, SNAPSHOT_FORMAT, type BuiltSnapshot, type FeedFiles } from './snapshot-format.ts';

type DataOf<D> = D extends { snapshot: SnapshotCodec<infer T> } ? T : never;

/** The in-memory data of each snapshot capability. */
export type SnapshotData = {
  [D in CapabilityDefinitions as [DataOf<D>] extends [never] ? never : D['key']]: DataOf<D>;
};

export type SnapshotName = keyof SnapshotData;

function codec(name: SnapshotName) {
  const snapshot = CAPABILITY_DEFINITIONS.find((c) => c.key === name)?.snapshot;
  if (!snapshot) throw new Error(`${name} is not a snapshot capability`);
  return snapshot;
}

export function buildSnapshot(name: SnapshotName, files: FeedFiles): BuiltSnapshot {
  return codec(name).build(files);
}

/** The snapshot's data; throws when the payload is not a snapshot of this format. */
export function decodeSnapshot<N extends SnapshotName>(name: N, payload: Buffer): SnapshotData[N] {
  const what = `snapshot ${name}`;
  const decoded = decodeSections(MAGIC, payload);
  if (!decoded || decoded.header.format !== SNAPSHOT_FORMAT)
    throw new Error(`${what}: not format ${SNAPSHOT_FORMAT}`);
  return codec(name).decode(decoded, what) as SnapshotData[N];
}
