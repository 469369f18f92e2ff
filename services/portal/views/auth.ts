import { html, type SafeHtml } from '../html.ts';
import { errorSummary, fieldError, invalidAttrs, layout, type FormError } from './layout.ts';

export function signinPage(
  csrf: string,
  opts: { email?: string; error?: string; field?: 'email' | 'password' } = {},
): SafeHtml {
  const errors: FormError[] = opts.error ? [{ field: opts.field ?? 'email', text: opts.error }] : [];
  return layout(
    'Sign in',
    html`${errorSummary(errors)}
      <form method="post" action="/signin" class="card">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <label for="email">Email</label>
        ${fieldError(errors, 'email')}
        <input
          type="email"
          id="email"
          name="email"
          autocomplete="username"
          required
          value="${opts.email ?? ''}"
          ${invalidAttrs(errors, 'email')}
        />
        <label for="password">Password</label>
        ${fieldError(errors, 'password')}
        <input
          type="password"
          id="password"
          name="password"
          autocomplete="current-password"
          required
          ${invalidAttrs(errors, 'password')}
        />
        <button type="submit">Sign in</button>
      </form>
      <p class="hint">
        No account yet, or <a href="/forgot">forgot your password</a>? Your organisation's admin (or an
        operator) sends you a setup link.
      </p>`,
  );
}

export function setupPage(csrf: string, token: string, email: string, error?: FormError): SafeHtml {
  const errors = error ? [error] : [];
  return layout(
    'Choose your password',
    html`${errorSummary(errors)}
      <form method="post" action="/setup" class="card">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <input type="hidden" name="token" value="${token}" />
        <p>Account: <strong>${email}</strong></p>
        <label for="password">New password (at least 12 characters)</label>
        ${fieldError(errors, 'password')}
        <input
          type="password"
          id="password"
          name="password"
          autocomplete="new-password"
          required
          minlength="12"
          ${invalidAttrs(errors, 'password')}
        />
        <label for="confirm">Repeat it</label>
        ${fieldError(errors, 'confirm')}
        <input
          type="password"
          id="confirm"
          name="confirm"
          autocomplete="new-password"
          required
          minlength="12"
          ${invalidAttrs(errors, 'confirm')}
        />
        <button type="submit">Set password</button>
      </form>`,
  );
}

/** No mail server: a forgotten password is reset through a new setup link from an admin. */
export function forgotPage(): SafeHtml {
  return layout(
    'Forgot your password?',
    html`<div class="card">
      <p>The portal sends no email. To set a new password:</p>
      <ol>
        <li>Ask your organisation's portal admin for a new setup link (Team page, "New setup link").</li>
        <li>Open the link within 24 hours and choose a new password.</li>
      </ol>
      <p class="hint">
        A new link makes every earlier link unknown; setting the password signs out your other sessions. If
        your organisation has no admin in the portal, ask the service's operators.
      </p>
      <p><a href="/signin">Back to sign in</a></p>
    </div>`,
  );
}
