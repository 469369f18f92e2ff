/**
 * What the `/v1/lists` routes share (lists-read.ts, lists-write.ts): the store they use, who the
 * actor of a change is, and the admission of a change (the controls' `lists` scope: a rate window
 * and Idempotency-Keys of its own, never billed, never a scoring slot).
 */
import type { Response } from 'express';
import { ListEntryError } from '../../../shared/capabilities/org-lists/entry.ts';
import { ApiError } from '../../../shared/contract/errors.ts';
import type { OrgListStore } from '../../../shared/orgs/lists-store.ts';
import type { Principal } from '../auth.ts';
import type { AdmissionControl } from '../controls/controls.ts';
import { sendJsonText, setHeaders } from '../http/send-json.ts';

export interface ListsRouteDeps {
  controls: AdmissionControl;
  listStore: Pick<OrgListStore, 'list' | 'version' | 'add' | 'remove' | 'replace'>;
}

/** Who made a change through the API: the calling key, never the key itself. */
export const actorOf = (principal: Principal) => `key:${principal.keyId}`;

/** The store's refusal of a change that is valid entry by entry: the list would be too long. */
function listFull(err: ListEntryError): ApiError {
  return new ApiError(422, { code: 'E_LIST_FULL', message: err.message });
}

/**
 * Admits a change in the `lists` scope and answers 200 with what `change` returns. A replay of its
 * Idempotency-Key answers the stored 200; a change that fails after admission frees the key.
 * `sent` is the body as sent, which the Idempotency-Key is bound to.
 */
export async function admitChange(
  deps: ListsRouteDeps,
  input: { principal: Principal; idempotencyKey: string | undefined; sent: unknown },
  res: Response,
  change: () => Promise<object>,
): Promise<void> {
  const admission = await deps.controls.admit(input.principal, input.idempotencyKey, input.sent, 'lists');
  setHeaders(res, admission.headers);
  if (admission.kind === 'replay') return sendJsonText(res, admission.body);
  let answer: string;
  try {
    answer = JSON.stringify(await change());
  } catch (err) {
    await admission.release();
    throw err instanceof ListEntryError ? listFull(err) : err;
  }
  await admission.commit(answer);
  sendJsonText(res, answer);
}
