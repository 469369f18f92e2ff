import { randomBytes } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { passwordProblem, PASSWORD_MAX } from '../../../shared/portal/password.ts';
import type { UserStore } from '../../../shared/portal/users.ts';
import type { SigninLimit } from '../signin-limit.ts';
import {
  clearCookie,
  FORM_COOKIE,
  readCookie,
  sameToken,
  SESSION_COOKIE,
  setCookie,
  type SessionStore,
} from '../sessions.ts';
import { forgotPage, setupPage, signinPage } from '../views/auth.ts';
import { messagePage } from '../views/layout.ts';
import { formField, tokenField } from './guard.ts';

export interface AuthRouteDeps {
  users: UserStore;
  sessions: SessionStore;
  limit: SigninLimit;
}

/**
 * Forms shown before a session exists use a double-submit token: a random HttpOnly, SameSite
 * cookie whose value the form must echo. Another site can neither read nor set it.
 */
function formToken(req: Request, res: Response): string {
  const existing = readCookie(req, FORM_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  setCookie(req, res, FORM_COOKIE, token);
  return token;
}

const formTokenOk = (req: Request) => sameToken(tokenField(req, '_csrf'), readCookie(req, FORM_COOKIE));

function send(res: Response, status: number, page: { value: string }) {
  res.status(status).type('html').send(page.value);
}

async function startSession(
  deps: AuthRouteDeps,
  req: Request,
  res: Response,
  user: Parameters<SessionStore['create']>[0],
) {
  // A fresh id at every sign-in: an id planted before sign-in never becomes a session.
  await deps.sessions.destroy(readCookie(req, SESSION_COOKIE));
  const { sid } = await deps.sessions.create(user);
  setCookie(req, res, SESSION_COOKIE, sid, deps.sessions.idleS * 1000);
  res.redirect(303, '/activity');
}

async function signin(deps: AuthRouteDeps, req: Request, res: Response) {
  const csrf = formToken(req, res);
  if (!formTokenOk(req)) return send(res, 403, signinPage(csrf, { error: 'The form expired; try again.' }));
  const emailField = formField(req, 'email', 'Email', 254);
  const passwordField = formField(req, 'password', 'Password', PASSWORD_MAX);
  // Refused as sent, before any attempt is counted or password checked.
  if (!emailField.ok) return send(res, 422, signinPage(csrf, { error: emailField.message }));
  const email = emailField.value;
  if (!passwordField.ok)
    return send(res, 422, signinPage(csrf, { email, error: passwordField.message, field: 'password' }));
  const password = passwordField.value;
  // The attempt is counted before the password is checked: parallel attempts cannot all pass.
  const slot = await deps.limit.take(email, req.ip ?? 'unknown');
  if (!slot.ok) {
    res.set('Retry-After', String(slot.retryAfterS));
    const minutes = Math.ceil(slot.retryAfterS / 60);
    return send(
      res,
      429,
      signinPage(csrf, { email, error: `Too many failed sign-ins. Try again in ${minutes} min.` }),
    );
  }
  const user = await deps.users.verify(email, password);
  if (!user) return send(res, 401, signinPage(csrf, { email, error: 'Wrong email or password.' }));
  await slot.succeeded();
  await startSession(deps, req, res, user);
}

const badLink = (res: Response) =>
  send(
    res,
    404,
    messagePage(
      'Setup link not valid',
      "This setup link is unknown, used or expired (links last 24 hours). Ask your organisation's admin for a new one.",
    ),
  );

async function setupForm(deps: AuthRouteDeps, req: Request, res: Response) {
  const token = typeof req.query.token === 'string' ? req.query.token : '';
  const user = token.length <= 100 ? await deps.users.peekSetupToken(token) : null;
  if (!user) return badLink(res);
  send(res, 200, setupPage(formToken(req, res), token, user.email));
}

async function setup(deps: AuthRouteDeps, req: Request, res: Response) {
  const csrf = formToken(req, res);
  // The link's token travels in a hidden field: anything but one token of the link's size is no link.
  const token = tokenField(req, 'token', 100);
  const user = token === undefined ? null : await deps.users.peekSetupToken(token);
  if (!user || token === undefined) return badLink(res);
  const refuse = (status: number, message: Parameters<typeof setupPage>[3]) =>
    send(res, status, setupPage(csrf, token, user.email, message));
  if (!formTokenOk(req)) return refuse(403, { text: 'The form expired; try again.' });
  const passwordField = formField(req, 'password', 'Password', PASSWORD_MAX);
  if (!passwordField.ok) return refuse(422, { field: 'password', text: passwordField.message });
  const password = passwordField.value;
  const problem = passwordProblem(password);
  if (problem) return refuse(422, { field: 'password', text: `The password needs ${problem}.` });
  const confirm = formField(req, 'confirm', 'Confirm password', PASSWORD_MAX);
  if (!confirm.ok || password !== confirm.value)
    return refuse(422, {
      field: 'confirm',
      text: confirm.ok ? 'The two passwords differ.' : confirm.message,
    });
  const done = await deps.users.completeSetup(token, password);
  if (!done) return badLink(res);
  await startSession(deps, req, res, done);
}

export function authRoutes(deps: AuthRouteDeps): Router {
  const router = Router();
  router.get('/signin', (req, res) => send(res, 200, signinPage(formToken(req, res))));
  router.get('/forgot', (_req, res) => send(res, 200, forgotPage()));
  router.post('/signin', (req, res) => signin(deps, req, res));
  router.get('/setup', (req, res) => setupForm(deps, req, res));
  router.post('/setup', (req, res) => setup(deps, req, res));
  return router;
}

/** POST /signout, behind the session guard and its CSRF check. */
export function signoutRoute(sessions: SessionStore): Router {
  const router = Router();
  router.post('/signout', async (req, res) => {
    await sessions.destroy(readCookie(req, SESSION_COOKIE));
    clearCookie(req, res, SESSION_COOKIE);
    res.redirect(303, '/signin');
  });
  return router;
}
