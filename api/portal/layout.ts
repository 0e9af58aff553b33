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
  const environment = nav?.environment;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false}' />
        <title>${environment === 'test' ? 'Test mode · ' : ''}${title} · Switchboard</title>
        <link rel="stylesheet" href="/portal/assets/portal.css" />
        <!-- No favicon: without this the browser asks for /favicon.ico, which the API answers 404. -->
        <link rel="icon" href="data:," />
        <script src="/portal/assets/htmx.min.js" defer></script>
        <script src="/portal/assets/portal.js" defer></script>
      </head>
      <body class="${environment ? `env-${environment}` : 'signed-out'}">
        <a class="skip-link" href="#main">Skip to content</a>
        ${nav ? environmentBanner(nav) : ''}
        <div class="shell">
          <header class="sidebar">
            <a class="brand" href="/portal${environment ? `?env=${environment}` : ''}">Switchboard</a>
            ${nav ? navigation(nav) : ''}
          </header>
          <main id="main">
            <h1>${title}</h1>
            ${body}
          </main>
        </div>
      </body>
    </html>`;
}

/**
 * Which environment the page acts on, impossible to miss: test mode is a striped amber band across every page
 * (and "Test mode" starts the tab's title); live is a green band naming real calls and real money.
 */
function environmentBanner(nav: PageNav): Html {
  const other = nav.environment === 'test' ? 'live' : 'test';
  const words =
    nav.environment === 'test'
      ? html`<strong>Test mode</strong> <span>Simulated calls and test credit: nothing reaches a real phone or card.</span>`
      : html`<strong>Live</strong> <span>Real phone numbers, real calls, real money.</span>`;
  return html`<div class="env-banner env-banner-${nav.environment}" id="environment" data-environment="${nav.environment}">
    <p>${words} <a href="${nav.current}?env=${other}">Switch to ${other === 'test' ? 'test mode' : 'live'}</a></p>
  </div>`;
}

/**
 * The navigation, grouped by purpose (as Twilio's and Stripe's consoles group theirs); on a phone it folds under a Menu
 * button. Group names label their lists rather than being headings, so each page's outline starts at its own h1.
 */
const NAV_GROUPS: Array<{ heading: string; links: Array<{ href: string; label: string; members?: true }> }> = [
  {
    heading: 'Build',
    links: [
      { href: '/portal', label: 'Overview' },
      { href: '/portal/lines', label: 'Lines' },
      { href: '/portal/api-keys', label: 'API keys' },
      { href: '/portal/keys', label: 'Service keys' },
    ],
  },
  {
    heading: 'Monitor',
    links: [
      { href: '/portal/calls', label: 'Calls' },
      { href: '/portal/campaigns', label: 'Campaigns' },
      { href: '/portal/conversations', label: 'Conversations' },
      { href: '/portal/deliveries', label: 'Deliveries' },
      { href: '/portal/audit', label: 'Audit log' },
    ],
  },
  {
    heading: 'Account',
    links: [
      { href: '/portal/billing', label: 'Billing' },
      { href: '/portal/compliance', label: 'Compliance' },
      { href: '/portal/members', label: 'Members', members: true },
      { href: '/portal/settings', label: 'Settings' },
      { href: '/portal/security', label: 'Security' },
    ],
  },
];

function navigation(nav: PageNav): Html {
  const link = (href: string, label: string) =>
    html`<li><a href="${href}?env=${nav.environment}" ${nav.current === href ? html`aria-current="page"` : ''}>${label}</a></li>`;
  return html`<button type="button" class="menu-button" aria-expanded="false" aria-controls="portal-nav" hidden>Menu</button>
    <nav aria-label="Portal" id="portal-nav">
      ${NAV_GROUPS.map(
        (group) =>
          html`<div class="nav-group">
            <p class="nav-heading" id="nav-${group.heading.toLowerCase()}">${group.heading}</p>
            <ul aria-labelledby="nav-${group.heading.toLowerCase()}">
              ${group.links.filter((entry) => !entry.members || nav.managesMembers).map((entry) => link(entry.href, entry.label))}
            </ul>
          </div>`,
      )}
      <div class="nav-group">
        <p class="nav-heading" id="nav-help">Help</p>
        <ul aria-labelledby="nav-help">
          <li><a href="/docs">API reference</a></li>
        </ul>
      </div>
      <form method="post" action="/portal/logout" class="logout">
        <input type="hidden" name="csrf_token" value="${nav.csrfToken}" />
        <span class="who">${nav.email}</span>
        <button type="submit" class="secondary">Log out</button>
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

/** An error as the API would answer it: its message in words first, its code after it (to match the API's), each field's problem. */
export function errorBox(error: ShownError | undefined): Html {
  if (!error) return html``;
  return html`<div class="error" role="alert">
    <p>
      ${error.message} <span class="error-code">(<strong class="code">${error.code}</strong>)</span>
    </p>
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
