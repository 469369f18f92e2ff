import { html, type SafeHtml } from '../html.ts';
import { layout } from './layout.ts';

export function signinPage(csrf: string, opts: { email?: string; error?: string } = {}): SafeHtml {
  return layout(
    'Sign in',
    html`${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
      <form method="post" action="/signin" class="card">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <label
          >Email
          <input type="email" name="email" autocomplete="username" required value="${opts.email ?? ''}"
        /></label>
        <label
          >Password <input type="password" name="password" autocomplete="current-password" required
        /></label>
        <button type="submit">Sign in</button>
      </form>
      <p class="hint">
        No account yet? An operator creates it with the admin CLI and sends you a setup link.
      </p>`,
  );
}

export function setupPage(csrf: string, token: string, email: string, error?: string): SafeHtml {
  return layout(
    'Choose your password',
    html`${error ? html`<p class="error" role="alert">${error}</p>` : ''}
      <form method="post" action="/setup" class="card">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <input type="hidden" name="token" value="${token}" />
        <p>Account: <strong>${email}</strong></p>
        <label
          >New password (at least 12 characters)
          <input type="password" name="password" autocomplete="new-password" required minlength="12"
        /></label>
        <label
          >Repeat it
          <input type="password" name="confirm" autocomplete="new-password" required minlength="12"
        /></label>
        <button type="submit">Set password</button>
      </form>`,
  );
}
