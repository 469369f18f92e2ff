/**
 * The rule of docs/data.md "One row per answer" as SQL: a score counts unless a later score of the
 * same organisation carries the same request digest (the same Idempotency-Key: a retry scored again
 * because the first answer never left). Score ids begin with their time, so the greatest id of a
 * digest is the latest; `groupUniqArray` makes the list exact over re-delivered rows without FINAL,
 * and GLOBAL makes it right on a cluster, where one request's rows are on different shards.
 */

/** The list's select, as docs/data.md writes it in every counting query (its test looks for it). */
export const SUPERSEDED_SELECT = 'SELECT arrayJoin(arrayPopBack(arraySort(groupUniqArray(score_id))))';

/**
 * `AND score_id GLOBAL NOT IN (...)` for a query over `table` filtered by `where` (SQL on the sort
 * key, already quoted). `where` should reach as far past the query's own range as a retry may
 * come, so a request cut off at the range's end is counted in the range of its answer only.
 */
export function answeredOnly(table: string, where: string): string {
  return (
    `AND score_id GLOBAL NOT IN (${SUPERSEDED_SELECT} FROM ${table} ` +
    `WHERE ${where} AND request_digest != '' GROUP BY org_id, request_digest)`
  );
}
