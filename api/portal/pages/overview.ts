import type { Overview } from '../../../src/domain/accounts/overview';
import { html, type Html } from '../html';
import { layout, type PageNav } from '../layout';

export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  return `${sign}$${(Math.abs(cents) / 100).toFixed(2)}`;
}

/** The figures, also served alone so htmx refreshes them in place every 10 seconds. */
export function overviewStats(overview: Overview, environment: string): Html {
  return html`<dl class="stats" id="stats" hx-get="/portal/overview/stats?env=${environment}" hx-trigger="every 10s" hx-swap="outerHTML">
    <div>
      <dt>Balance</dt>
      <dd data-stat="balance">${formatCents(overview.balanceCents)}</dd>
    </div>
    <div>
      <dt>Held for calls in progress</dt>
      <dd>${formatCents(overview.heldCents)}</dd>
    </div>
    <div>
      <dt>Calls today (UTC)</dt>
      <dd data-stat="calls-today">${overview.callsToday}</dd>
    </div>
    <div>
      <dt>Failed deliveries, last 24 h</dt>
      <dd data-stat="failing-deliveries">${overview.failedDeliveries24h}</dd>
    </div>
  </dl>`;
}

export function overviewPage(overview: Overview, nav: PageNav): Html {
  return layout(
    'Overview',
    html`${overviewStats(overview, nav.environment)}
      <p>
        <a href="/portal/lines?env=${nav.environment}">Manage lines</a> ·
        <a href="/portal/deliveries?env=${nav.environment}&amp;status=failed">Failed deliveries</a>
      </p>`,
    nav,
  );
}
