import { Router, type Request, type Response } from 'express';
import { KeyLimitError } from '../../../shared/orgs/key-quota.ts';
import { KEY_LABEL, MAX_ROLL_OVERLAP_MS, type OrgStore } from '../../../shared/orgs/store.ts';
import type { FlashStore, FlashMessage } from '../flash.ts';
import type { KeyExpiry } from '../key-expiry.ts';
import { keysPage, KEY_SORTS, revokePage, rollPage, type KeySort } from '../views/keys.ts';
import { messagePage } from '../views/layout.ts';
import { formField, sessionOf, sidOf } from './guard.ts';

export interface KeysRouteDeps {
  orgs: OrgStore;
  flash: FlashStore;
  expiry: KeyExpiry;
  /** The API's public address, for the `curl` examples. */
  apiUrl: string;
}

function sortOf(req: Request): KeySort {
  const by = KEY_SORTS.find((s) => s === req.query.sort) ?? 'created';
  return { by, dir: req.query.dir === 'asc' ? 'asc' : 'desc' };
}

const utc = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';

/** A key of the session's organisation, or null: other organisations' keys do not exist here. */
async function ownKey({ orgs }: KeysRouteDeps, res: Response, keyId: string) {
  const key = await orgs.getKey(keyId);
  return key && key.org_id === sessionOf(res).org_id ? key : null;
}

const notFound = (res: Response) =>
  res
    .status(404)
    .type('html')
    .send(messagePage('No such key', 'Your organisation has no such key.', sessionOf(res)).value);

/** Every POST ends here: a one-time message, then 303 to the list. */
const back = async ({ flash }: KeysRouteDeps, res: Response, message: FlashMessage) => {
  await flash.put(sidOf(res), message);
  res.redirect(303, '/keys');
};

type Handler = (deps: KeysRouteDeps, req: Request, res: Response) => Promise<unknown>;

async function listKeys({ orgs, flash, expiry, apiUrl }: KeysRouteDeps, req: Request, res: Response) {
  const session = sessionOf(res);
  const [listed, lastUsed, message] = await Promise.all([
    orgs.listKeys(session.org_id),
    orgs.keysLastUsed(session.org_id),
    flash.take(sidOf(res)),
  ]);
  // Rolled keys past their overlap whose revocation timer was lost (a portal restart).
  const keys = await expiry.sweep(listed);
  res.type('html').send(
    keysPage(session, {
      keys,
      lastUsed,
      maxActive: orgs.quota.max,
      apiUrl,
      sort: sortOf(req),
      ...message,
    }).value,
  );
}

async function createKey(deps: KeysRouteDeps, req: Request, res: Response) {
  // The label's own rule (KEY_LABEL) is 64 characters after trimming; past 1,024 the value is
  // not read at all, and refused with the same rule.
  const typed = formField(req, 'label', 'Label', 1024, 'Label: at most 64 characters.');
  if (!typed.ok) return back(deps, res, { error: typed.message, field: { name: 'label', value: '' } });
  const label = KEY_LABEL.safeParse(typed.value);
  if (!label.success)
    return back(deps, res, {
      error: `Label: ${label.error.issues[0]!.message}.`,
      field: { name: 'label', value: typed.value.slice(0, 200) },
    });
  try {
    const created = await deps.orgs.createKey(sessionOf(res).org_id, label.data);
    await back(deps, res, { created: { ...created, label: label.data } });
  } catch (err) {
    if (!(err instanceof KeyLimitError)) throw err;
    await back(deps, res, {
      error: `Your organisation already has ${err.max} active keys, the most it may hold. Revoke a key it no longer uses to create another.`,
      field: { name: 'label', value: label.data },
    });
  }
}

/** The confirmation page of revoking or rolling an active key. */
const confirmPage =
  (page: typeof revokePage): Handler =>
  async (deps, req, res) => {
    const key = await ownKey(deps, res, String(req.params.keyId));
    if (!key || key.status !== 'active') return notFound(res);
    res.type('html').send(page(sessionOf(res), key).value);
  };

async function revokeKey(deps: KeysRouteDeps, req: Request, res: Response) {
  const key = await ownKey(deps, res, String(req.params.keyId));
  if (!key) return notFound(res);
  // The store publishes the revocation; every API node drops the key within a second.
  await deps.orgs.revokeKey(key.key_id);
  await back(deps, res, { notice: `Key ${key.label || key.key_id} (${key.key_id}) is revoked.` });
}

async function rollKey(deps: KeysRouteDeps, req: Request, res: Response) {
  const key = await ownKey(deps, res, String(req.params.keyId));
  if (!key || key.status !== 'active') return notFound(res);
  const overlap = formField(req, 'overlap_s', 'Overlap', 10);
  if (!overlap.ok) return back(deps, res, { error: overlap.message });
  const overlapS = /^\d+$/.test(overlap.value) ? Number(overlap.value) : NaN;
  if (!Number.isInteger(overlapS) || overlapS * 1000 > MAX_ROLL_OVERLAP_MS)
    return back(deps, res, { error: 'Overlap: choose how long the old key keeps working.' });
  try {
    const rolled = await deps.orgs.rollKey(key.key_id, overlapS * 1000);
    if (!rolled) return notFound(res);
    deps.expiry.schedule(key.key_id, rolled.expires_at);
    await back(deps, res, {
      created: { key_id: rolled.key_id, api_key: rolled.api_key, label: key.label },
      notice: `Key ${key.label || key.key_id} (${key.key_id}) is rolled: it keeps working until ${utc(rolled.expires_at)}, then every API node refuses it. Move your services to the new key before then.`,
    });
  } catch (err) {
    if (!(err instanceof KeyLimitError)) throw err;
    await back(deps, res, {
      error: `Your organisation already has ${err.max} active keys; revoke one it no longer uses to roll this key.`,
    });
  }
}

/**
 * The Keys page: list (sortable), create (the clear key shown once), roll with an overlap, revoke
 * with a confirmation. Every POST answers 303 to GET /keys with a one-time message, so a reload
 * or "back" repeats nothing.
 */
export function keysRoutes(deps: KeysRouteDeps): Router {
  const on = (handler: Handler) => (req: Request, res: Response) => handler(deps, req, res);
  const router = Router();
  router.get('/keys', on(listKeys));
  router.post('/keys', on(createKey));
  router.get('/keys/:keyId/revoke', on(confirmPage(revokePage)));
  router.post('/keys/:keyId/revoke', on(revokeKey));
  router.get('/keys/:keyId/roll', on(confirmPage(rollPage)));
  router.post('/keys/:keyId/roll', on(rollKey));
  return router;
}
