import { html, type SafeHtml } from '../html.ts';
import type { Session } from '../sessions.ts';
import { errorSummary, fieldError, invalidAttrs, layout, type FormError } from './layout.ts';

export interface TeamView {
  isAdmin: boolean;
  notice?: string;
  error?: string;
  field?: { name: string; value: string };
  /** A link just issued: shown once, to pass on to the colleague. */
  setupLink?: { email: string; url: string };
}

/** Account recovery without mail: an organisation's admin issues a colleague a new setup link. */
export function teamPage(session: Session & { orgName?: string }, v: TeamView): SafeHtml {
  const errors: FormError[] = v.error ? [{ field: v.field?.name, text: v.error }] : [];
  return layout(
    'Team',
    html`${
      v.setupLink
        ? html`<section class="created" id="setup-link" aria-labelledby="setup-link-title">
            <h2 id="setup-link-title">New setup link for ${v.setupLink.email}</h2>
            <p class="warning">
              <strong>Send this link to ${v.setupLink.email} yourself</strong> (the portal sends no email). It
              works once, for 24 hours; any earlier link of theirs no longer works. Setting the password with
              it signs them out everywhere else.
            </p>
            <div class="copy-row">
              <input
                id="setup-link-value"
                class="key"
                readonly
                value="${v.setupLink.url}"
                aria-label="Setup link"
              />
              <button type="button" data-copy="setup-link-value">Copy link</button>
              <span class="copied" aria-live="polite"></span>
            </div>
          </section>`
        : ''
    }
    ${
      v.isAdmin
        ? html`${errorSummary(errors)}
            <form method="post" action="/team/link" class="card" novalidate>
              <h2>Forgotten password or lost setup link</h2>
              <p>Issue a colleague of ${session.orgName ?? session.org_id} a new one-time setup link.</p>
              <input type="hidden" name="_csrf" value="${session.csrf}" />
              <label for="email">Their email</label>
              ${fieldError(errors, 'email')}
              <input
                type="email"
                id="email"
                name="email"
                autocomplete="off"
                value="${v.field?.value ?? ''}"
                ${invalidAttrs(errors, 'email')}
              />
              <button type="submit">Issue setup link</button>
            </form>`
        : html`<div class="card">
            <p>
              Forgot a password or lost a setup link? Your organisation's portal admins issue new setup links
              from this page; ask one of them (or the service's operators).
            </p>
          </div>`
    }`,
    session,
  );
}
