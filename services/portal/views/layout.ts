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
        <header>
          <strong class="brand">Fraud risk portal</strong>
          ${
            session
              ? html`<nav>
                    <a href="/activity">Activity</a>
                    <a href="/keys">Keys</a>
                  </nav>
                  <span class="who">${session.email} · ${session.orgName ?? session.org_id}</span>
                  <form method="post" action="/signout" class="inline">
                    <input type="hidden" name="_csrf" value="${session.csrf}" />
                    <button type="submit" class="link">Sign out</button>
                  </form>`
              : ''
          }
        </header>
        <main>
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`;
}

export function messagePage(title: string, message: string, session?: Session): SafeHtml {
  return layout(title, html`<p class="notice">${message}</p>`, session);
}
