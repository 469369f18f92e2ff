import { Router } from 'express';
import type { UserStore } from '../../../shared/portal/users.ts';
import type { FlashStore } from '../flash.ts';
import { messagePage } from '../views/layout.ts';
import { teamPage } from '../views/team.ts';
import { formField, sessionOf, sidOf } from './guard.ts';

export interface TeamRouteDeps {
  users: UserStore;
  flash: FlashStore;
  /** Where setup links point (PORTAL_URL), as the admin CLI builds them. */
  portalUrl: string;
}

/**
 * The Team page: an organisation's portal admin issues a colleague a new setup link (the way back
 * from a forgotten password; the portal sends no mail). Only users of the admin's own
 * organisation: any other email gets the same answer as an unknown one.
 */
export function teamRoutes({ users, flash, portalUrl }: TeamRouteDeps): Router {
  const router = Router();

  const isAdmin = async (userId: string) => (await users.byId(userId))?.role === 'admin';

  router.get('/team', async (_req, res) => {
    const session = sessionOf(res);
    const [admin, message] = await Promise.all([isAdmin(session.user_id), flash.take(sidOf(res))]);
    res.type('html').send(teamPage(session, { isAdmin: admin, ...message }).value);
  });

  router.post('/team/link', async (req, res) => {
    const session = sessionOf(res);
    if (!(await isAdmin(session.user_id)))
      return res
        .status(403)
        .type('html')
        .send(
          messagePage('Not allowed', "Only your organisation's portal admins issue setup links.", session)
            .value,
        );
    const typed = formField(req, 'email', 'Email', 254);
    if (!typed.ok) {
      await flash.put(sidOf(res), { error: typed.message, field: { name: 'email', value: '' } });
      return res.redirect(303, '/team');
    }
    const email = typed.value.trim();
    const user = await users.byEmail(email);
    if (!user || user.org_id !== session.org_id) {
      await flash.put(sidOf(res), {
        error: 'There is no portal user with that email in your organisation.',
        field: { name: 'email', value: email },
      });
      return res.redirect(303, '/team');
    }
    const token = await users.issueSetupToken(user.user_id);
    await flash.put(sidOf(res), {
      setupLink: { email: user.email, url: `${portalUrl.replace(/\/$/, '')}/setup?token=${token}` },
    });
    res.redirect(303, '/team');
  });

  return router;
}
