import { html, type Html } from './html';

export interface PageNav {
  email: string;
  environment: 'test' | 'live';
  csrfToken: string;
  /** The page's own path, to mark it in the navigation and switch environments on it. */
  current: string;
  /** Owners and admins manage members; a plain member is not offered the page (it refuses them anyway). */
  managesMembers: boolean;
}

/** The document around every page: local assets only (the CSP allows nothing else), no inline script or style. */
export function layout(title: string, body: Html, nav?: PageNav): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false}' />
        <title>${title} · Switchboard</title>
        <link rel="stylesheet" href="/portal/assets/portal.css" />
        <!-- No favicon: without this the browser asks for /favicon.ico, which the API answers 404. -->
        <link rel="icon" href="data:," />
        <script src="/portal/assets/htmx.min.js" defer></script>
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/portal">Switchboard</a>
          ${nav ? navigation(nav) : ''}
        </header>
        <main id="main">
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`;
}

function navigation(nav: PageNav): Html {
  const link = (href: string, label: string) =>
    html`<li><a href="${href}?env=${nav.environment}" ${nav.current === href ? html`aria-current="page"` : ''}>${label}</a></li>`;
  const other = nav.environment === 'test' ? 'live' : 'test';
  return html`<nav aria-label="Portal">
    <ul>
      ${link('/portal', 'Overview')} ${link('/portal/lines', 'Lines')} ${link('/portal/calls', 'Calls')}
      ${link('/portal/conversations', 'Conversations')} ${link('/portal/billing', 'Billing')} ${link('/portal/deliveries', 'Deliveries')}
      ${link('/portal/api-keys', 'API keys')} ${link('/portal/keys', 'Service keys')} ${link('/portal/compliance', 'Compliance')}
      ${link('/portal/audit', 'Audit log')} ${link('/portal/settings', 'Settings')} ${link('/portal/security', 'Security')}
      ${nav.managesMembers ? link('/portal/members', 'Members') : ''}
    </ul>
    <p class="env">Environment: <strong>${nav.environment}</strong> · <a href="${nav.current}?env=${other}">switch to ${other}</a></p>
    <form method="post" action="/portal/logout" class="logout">
      <input type="hidden" name="csrf_token" value="${nav.csrfToken}" />
      <span>${nav.email}</span>
      <button type="submit">Log out</button>
    </form>
  </nav>`;
}

export interface ShownError {
  code: string;
  message: string;
  details?: Array<{ field?: string; message: string }>;
}

/** What the last form did, above the page: its error (see errorBox) and its notice, each if any. */
export function formOutcome(error: ShownError | undefined, notice: string | undefined): Html {
  return html`${errorBox(error)} ${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}`;
}

/** An error as the API would answer it: its code, its message and each field's problem. */
export function errorBox(error: ShownError | undefined): Html {
  if (!error) return html``;
  return html`<div class="error" role="alert">
    <p><strong class="code">${error.code}</strong>: ${error.message}</p>
    ${
      error.details?.length
        ? html`<ul>
            ${error.details.map((d) => html`<li>${d.field ? html`<code>${d.field}</code> ` : ''}${d.message}</li>`)}
          </ul>`
        : ''
    }
  </div>`;
}

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="csrf_token" value="${token}" />`;
}
