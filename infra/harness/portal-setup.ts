/** Signing in to a portal as a browser does, for tests and benches. */

/** The cookies a response sets, by name, each with its attributes as sent. */
export function setCookies(res: Response): Map<string, string> {
  return new Map(res.headers.getSetCookie().map((c) => [c.slice(0, c.indexOf('=')), c]));
}

/** The `name=value` part of a cookie a response set. */
export const cookiePair = (res: Response, name: string) => setCookies(res).get(name)?.split(';')[0];

/**
 * Follows a setup link as a browser does: GET the form (its double-submit cookie and token),
 * then POST the password; the response is the redirect that carries the new session cookie.
 */
export async function completeSetup(
  portalUrl: string,
  token: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const form = await fetch(`${portalUrl}/setup?token=${encodeURIComponent(token)}`, { headers });
  if (form.status !== 200) return form;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  return fetch(`${portalUrl}/setup`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      ...headers,
      'content-type': 'application/x-www-form-urlencoded',
      cookie: cookiePair(form, 'frs_form') ?? '',
    },
    body: new URLSearchParams({ _csrf: csrf, token, password, confirm: password }),
  });
}
