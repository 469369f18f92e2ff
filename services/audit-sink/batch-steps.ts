/**
 * The two steps every consumer of the audit sink ends a batch with (the sink, the ledger learner,
 * the velocity counter): apply the batch to its store until the store takes it, for as long as
 * this consumer still owns the batch; then mark it consumed and commit the offset after its last
 * message. Offsets are committed by hand, after the store took the batch, so a crash re-delivers
 * rather than loses (each store's write is idempotent for a re-delivered record).
 */
import type { Consumer, EachBatchPayload } from 'kafkajs';
import type { Logger } from '../../shared/logger.ts';
import { retry } from '../../shared/retry.ts';

type Ownership = Pick<EachBatchPayload, 'heartbeat' | 'isRunning' | 'isStale'>;

/**
 * Runs `apply` until it succeeds, pausing 100 ms to 5 s after each failure and heartbeating so the
 * group keeps the batch here; false once the consumer stops or the batch went to another member.
 */
export async function applyWhileOwned(
  payload: Ownership,
  log: Logger,
  what: string,
  apply: () => Promise<unknown>,
): Promise<boolean> {
  const done = await retry(
    async () => {
      await apply();
      return true;
    },
    {
      firstMs: 100,
      maxMs: 5_000,
      keepGoing: () => payload.isRunning() && !payload.isStale(),
      onFailure: async (err, backoff) => {
        log.warn({ err, backoff }, `${what} failed; retrying`);
        await payload.heartbeat().catch(() => undefined);
      },
    },
  );
  return done === true;
}

/** Marks the batch consumed and commits the offset after its last message, then heartbeats. */
export async function commitBatch(
  consumer: Consumer,
  payload: Pick<EachBatchPayload, 'batch' | 'resolveOffset' | 'heartbeat'>,
): Promise<void> {
  const { batch } = payload;
  const last = batch.messages[batch.messages.length - 1];
  if (!last) return;
  payload.resolveOffset(last.offset);
  await consumer.commitOffsets([
    { topic: batch.topic, partition: batch.partition, offset: (BigInt(last.offset) + 1n).toString() },
  ]);
  await payload.heartbeat();
}
