import { Router, type Response } from 'express';
import { KeyLimitError } from '../../../shared/orgs/key-quota.ts';
import { KEY_LABEL, type OrgStore } from '../../../shared/orgs/store.ts';
import type { FlashStore } from '../flash.ts';
import { keysPage, revokePage } from '../views/keys.ts';
import { messagePage } from '../views/layout.ts';
import { field, sessionOf, sidOf } from './guard.ts';

/**
 * The Keys page: list, create (the clear key shown once), revoke with a confirmation. Every POST
 * answers 303 to GET /keys with a one-time message, so a reload or "back" repeats nothing.
 */
export function keysRoutes(orgs: OrgStore, flash: FlashStore, apiUrl: string): Router {
  const router = Router();

  /** A key of the session's organisation, or null: other organisations' keys do not exist here. */
  async function ownKey(res: Response, keyId: string) {
    const key = await orgs.getKey(keyId);
    return key && key.org_id === sessionOf(res).org_id ? key : null;
  }

  const notFound = (res: Response) =>
    res
      .status(404)
      .type('html')
      .send(messagePage('No such key', 'Your organisation has no such key.', sessionOf(res)).value);

  router.get('/keys', async (_req, res) => {
    const session = sessionOf(res);
    const [keys, lastUsed, message] = await Promise.all([
      orgs.listKeys(session.org_id),
      orgs.keysLastUsed(session.org_id),
      flash.take(sidOf(res)),
    ]);
    res
      .type('html')
      .send(keysPage(session, { keys, lastUsed, maxActive: orgs.quota.max, apiUrl, ...message }).value);
  });

  router.post('/keys', async (req, res) => {
    const typed = field(req, 'label', 1024) ?? '';
    const label = KEY_LABEL.safeParse(typed);
    const back = async (message: Parameters<FlashStore['put']>[1]) => {
      await flash.put(sidOf(res), message);
      res.redirect(303, '/keys');
    };
    if (!label.success)
      return back({
        error: `Label: ${label.error.issues[0]!.message}.`,
        field: { name: 'label', value: typed.slice(0, 200) },
      });
    try {
      const created = await orgs.createKey(sessionOf(res).org_id, label.data);
      await back({ created: { ...created, label: label.data } });
    } catch (err) {
      if (!(err instanceof KeyLimitError)) throw err;
      await back({
        error: `Your organisation already has ${err.max} active keys, the most it may hold. Revoke a key it no longer uses to create another.`,
        field: { name: 'label', value: label.data },
      });
    }
  });

  router.get('/keys/:keyId/revoke', async (req, res) => {
    const key = await ownKey(res, String(req.params.keyId));
    if (!key || key.status !== 'active') return notFound(res);
    res.type('html').send(revokePage(sessionOf(res), key).value);
  });

  router.post('/keys/:keyId/revoke', async (req, res) => {
    const key = await ownKey(res, String(req.params.keyId));
    if (!key) return notFound(res);
    // The store publishes the revocation; every API node drops the key within a second.
    await orgs.revokeKey(key.key_id);
    await flash.put(sidOf(res), { notice: `Key ${key.label || key.key_id} (${key.key_id}) is revoked.` });
    res.redirect(303, '/keys');
  });

  return router;
}
