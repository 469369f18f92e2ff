/**
 * How the sink tells a batch ClickHouse refuses for what it holds from a ClickHouse that cannot
 * take any batch right now, and how it isolates the records at fault.
 *
 * A refusal for content (a parse or type error: one record's string ClickHouse cannot read) will
 * fail the same way forever, so retrying it stalls the partition and every tenant behind it. Such
 * a batch is split in halves until each refused record stands alone; those go to the DLQ, every
 * other record is inserted. Anything else (connection refused, timeouts, overload, memory limit,
 * a missing table) is a ClickHouse that may recover: the same records are retried with backoff.
 */
import { errorMessage } from '../../shared/error-message.ts';

/**
 * ClickHouse error codes that mean "this data cannot be read or stored", whatever the server's
 * state: the same rows fail again on every retry. Truncated-input codes (32, 33) are left out on
 * purpose: the client serializes every row whole, so a truncated body is a broken connection.
 */
export const CONTENT_ERROR_CODES: ReadonlySet<number> = new Set([
  6, // CANNOT_PARSE_TEXT
  25, // CANNOT_PARSE_ESCAPE_SEQUENCE (a lone surrogate in a JSON string)
  26, // CANNOT_PARSE_QUOTED_STRING
  27, // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  38, // CANNOT_PARSE_DATE
  41, // CANNOT_PARSE_DATETIME
  53, // TYPE_MISMATCH
  69, // ARGUMENT_OUT_OF_BOUND
  70, // CANNOT_CONVERT_TYPE
  72, // CANNOT_PARSE_NUMBER
  117, // INCORRECT_DATA
  128, // TOO_LARGE_ARRAY_SIZE
  131, // TOO_LARGE_STRING_SIZE
  321, // VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE
  349, // CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN
]);

/**
 * The ClickHouse error code of a failed insert, if it has one. The client sets `code` when it can
 * parse the server's message; older servers (18.16) word it so that it cannot, and the code is
 * then read from the message (`Code: 25, e.displayText() = ...`).
 */
export function clickHouseErrorCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^\d+$/.test(code)) return Number(code);
  if (typeof code === 'number') return code;
  const m = /\bCode: (\d+)\b/.exec(errorMessage(err));
  return m ? Number(m[1]) : undefined;
}

export type Refusal = 'content' | 'unavailable';

export function classifyInsertError(err: unknown): Refusal {
  const code = clickHouseErrorCode(err);
  return code !== undefined && CONTENT_ERROR_CODES.has(code) ? 'content' : 'unavailable';
}

/** Short reason for the DLQ header: the server's words, bounded. */
export function refusalReason(err: unknown): string {
  const text = errorMessage(err).replace(/\s+/g, ' ').trim();
  return `clickhouse refused: ${text}`.slice(0, 500);
}

export interface Refused<T> {
  item: T;
  reason: string;
  code: number | undefined;
}

export interface SplitInsertOptions<T> {
  /** Inserts these items as one batch; rejects with ClickHouse's error. */
  insert: (items: T[]) => Promise<void>;
  /** Called before each retry after an unavailability error, with the error; waits the backoff. */
  onUnavailable: (err: unknown, items: number) => Promise<void>;
  /** False once the consumer is stopping or lost the partition: give up without a verdict. */
  keepGoing: () => boolean;
}

/**
 * Inserts `items`, splitting any slice refused for its content in two until each refused record
 * is alone. Returns the refused records (for the DLQ) or undefined if it stopped early
 * (`keepGoing` false), in which case nothing may be committed. Slices already inserted are not
 * sent again; a retry after unavailability resends only the slice that failed.
 */
export async function insertSplitting<T>(
  items: T[],
  opts: SplitInsertOptions<T>,
): Promise<Refused<T>[] | undefined> {
  const refused: Refused<T>[] = [];
  // A record refused alone is tried once more before the verdict: a content refusal repeats, a
  // glitch that only looked like one does not.
  const triedAlone = new Set<T>();
  // Slices still to insert, first one next; splitting puts both halves at the front, in order.
  const pending: T[][] = items.length > 0 ? [items] : [];
  while (pending.length > 0) {
    if (!opts.keepGoing()) return undefined;
    const slice = pending[0]!;
    try {
      await opts.insert(slice);
      pending.shift();
    } catch (err) {
      if (classifyInsertError(err) === 'unavailable') {
        await opts.onUnavailable(err, slice.length);
        continue;
      }
      pending.shift();
      if (slice.length === 1 && !triedAlone.has(slice[0]!)) {
        triedAlone.add(slice[0]!);
        pending.unshift(slice);
      } else if (slice.length === 1) {
        refused.push({ item: slice[0]!, reason: refusalReason(err), code: clickHouseErrorCode(err) });
      } else {
        const mid = Math.ceil(slice.length / 2);
        pending.unshift(slice.slice(0, mid), slice.slice(mid));
      }
    }
  }
  return refused;
}
