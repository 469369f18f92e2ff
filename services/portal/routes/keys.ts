import { Router, type Response } from 'express';
import { KeyLimitError } from '../../../shared/orgs/key-quota.ts';
import { KEY_LABEL, type OrgStore } from '../../../shared/orgs/store.ts';
import { keysPage, revokePage, type KeysView } from '../views/keys.ts';
import { messagePage } from '../views/layout.ts';
import { field, sessionOf } from './guard.ts';

/** The Keys page: list, create (the clear key shown once), revoke with a confirmation. */
export function keysRoutes(orgs: OrgStore): Router {
  const router = Router();

  async function render(
    res: Response,
    status: number,
    extra: Omit<KeysView, 'keys' | 'lastUsed' | 'maxActive'> = {},
  ) {
    const session = sessionOf(res);
    const [keys, lastUsed] = await Promise.all([
      orgs.listKeys(session.org_id),
      orgs.keysLastUsed(session.org_id),
    ]);
    res
      .status(status)
      .type('html')
      .send(keysPage(session, { keys, lastUsed, maxActive: orgs.quota.max, ...extra }).value);
  }

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

  router.get('/keys', async (req, res) => {
    const revoked = typeof req.query.revoked === 'string' ? req.query.revoked : undefined;
    const key = revoked ? await ownKey(res, revoked) : null;
    await render(
      res,
      200,
      key ? { notice: `Key ${key.label || key.key_id} (${key.key_id}) is revoked.` } : {},
    );
  });

  router.post('/keys', async (req, res) => {
    const label = KEY_LABEL.safeParse(field(req, 'label', 1024) ?? '');
    if (!label.success) return render(res, 422, { error: `Label: ${label.error.issues[0]!.message}.` });
    try {
      const created = await orgs.createKey(sessionOf(res).org_id, label.data);
      await render(res, 201, { created: { ...created, label: label.data } });
    } catch (err) {
      if (!(err instanceof KeyLimitError)) throw err;
      await render(res, 409, {
        error: `Your organisation already has ${err.max} active keys, the most it may hold. Revoke a key it no longer uses to create another.`,
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
    res.redirect(303, `/keys?revoked=${encodeURIComponent(key.key_id)}`);
  });

  return router;
}
