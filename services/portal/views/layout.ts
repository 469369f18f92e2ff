import { html, type SafeHtml } from '../html.ts';
import type { Session } from '../sessions.ts';

/** A page with the navigation of a signed-in user (or none on the sign-in pages). */
export function layout(title: string, body: SafeHtml, session?: Session & { orgName?: string }): SafeHtml {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Fraud risk portal</title>
        <link rel="stylesheet" href="/static/portal.css" />
        <script src="/static/portal.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <strong class="brand">Fraud risk portal</strong>
          ${
            session
              ? html`<nav aria-label="Main">
                    <a href="/activity">Activity</a>
                    <a href="/keys">Keys</a>
                    <a href="/lists">Lists</a>
                    <a href="/team">Team</a>
                  </nav>
                  <span class="who">${session.email} · ${session.orgName ?? session.org_id}</span>
                  <form method="post" action="/signout" class="inline">
                    <input type="hidden" name="_csrf" value="${session.csrf}" />
                    <button type="submit" class="link">Sign out</button>
                  </form>`
              : ''
          }
        </header>
        <main id="main">
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`;
}

export function messagePage(title: string, message: string, session?: Session): SafeHtml {
  return layout(title, html`<p class="notice">${message}</p>`, session);
}

/** A problem with one form field (or with the form as a whole when `field` is absent). */
export interface FormError {
  field?: string;
  text: string;
}

/**
 * The GOV.UK error summary: at the top of the form, focused on load by the page's script, each
 * problem a link to its field.
 */
export function errorSummary(errors: FormError[]): SafeHtml {
  if (errors.length === 0) return html``;
  return html`<div class="error-summary" role="alert" tabindex="-1" aria-labelledby="error-summary-title">
    <h2 id="error-summary-title">There is a problem</h2>
    <ul>
      ${errors.map((e) => html`<li>${e.field ? html`<a href="#${e.field}">${e.text}</a>` : e.text}</li>`)}
    </ul>
  </div>`;
}

/** A field's own error line, referenced by the field's `aria-describedby`. */
export const fieldError = (errors: FormError[], field: string): SafeHtml => {
  const e = errors.find((x) => x.field === field);
  return e
    ? html`<span class="field-error" id="${field}-error"
        ><span class="visually-hidden">Error:</span> ${e.text}</span
      >`
    : html``;
};

/** The attributes of a field that has an error. */
export const invalidAttrs = (errors: FormError[], field: string): SafeHtml =>
  errors.some((x) => x.field === field)
    ? html`aria-invalid="true" aria-describedby="${field}-error"`
    : html``;
