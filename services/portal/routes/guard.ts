import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { OrgStore } from '../../../shared/orgs/store.ts';
import { readCookie, sameToken, SESSION_COOKIE, type Session, type SessionStore } from '../sessions.ts';
import { messagePage } from '../views/layout.ts';

export type SignedIn = Session & { orgName?: string };

/** The session of a guarded route (set by `requireSession`). */
export const sessionOf = (res: Response) => res.locals.session as SignedIn;
/** The session id of a guarded route: it seals the session's one-time messages. */
export const sidOf = (res: Response) => res.locals.sid as string;

/**
 * Every page and action but sign-in and setup needs a session cookie. An `Authorization` header
 * is never looked at: an API key opens nothing here.
 */
export function requireSession(sessions: SessionStore, orgs: OrgStore): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const sid = readCookie(req, SESSION_COOKIE);
    const session = await sessions.get(sid);
    if (!session) {
      if (req.method === 'GET' || req.method === 'HEAD') return res.redirect(303, '/signin');
      return res
        .status(401)
        .type('html')
        .send(messagePage('Signed out', 'Your session has ended; sign in again.').value);
    }
    const org = await orgs.getOrg(session.org_id);
    res.locals.session = { ...session, orgName: org?.name } satisfies SignedIn;
    res.locals.sid = sid;
    next();
  };
}

/** Synchronizer token: every state-changing form carries the session's own CSRF token. */
export function requireCsrf(req: Request, res: Response, next: NextFunction): void {
  const session = sessionOf(res);
  const sent = typeof req.body?._csrf === 'string' ? req.body._csrf : undefined;
  if (!sameToken(sent, session.csrf)) {
    res
      .status(403)
      .type('html')
      .send(
        messagePage(
          'Form expired',
          'This form is not valid any more; reload the page and try again.',
          session,
        ).value,
      );
    return;
  }
  next();
}

/** A token field compared, never shown (CSRF): anything but one string of at most `max` is no token. */
export function tokenField(req: Request, name: string, max = 1024): string | undefined {
  const v = req.body?.[name];
  return typeof v === 'string' && v.length <= max ? v : undefined;
}

/** A form field as sent, or why it is refused (`message` names the field as the page labels it). */
export type FormField = { ok: true; value: string } | { ok: false; message: string };

/**
 * Reads one form field. Urlencoded bodies can repeat a name (the parser then gives an array) and
 * a value can be longer than the field allows: both are refused with a message naming the field,
 * never cut, joined or replaced by an empty value.
 */
export function formField(
  req: Request,
  name: string,
  label: string,
  max: number,
  /** The refusal of a value past `max`, when the field's own rule is stricter than `max`. */
  tooLong = `${label} is too long: at most ${max.toLocaleString('en')} characters.`,
): FormField {
  const v: unknown = req.body?.[name];
  if (v === undefined) return { ok: false, message: `${label} is missing.` };
  if (Array.isArray(v)) return { ok: false, message: `${label} was sent ${v.length} times; send it once.` };
  if (typeof v !== 'string') return { ok: false, message: `${label} must be text.` };
  if (v.length > max) return { ok: false, message: tooLong };
  return { ok: true, value: v };
}
