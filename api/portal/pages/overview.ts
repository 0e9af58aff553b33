import type { Overview } from '../../../src/domain/accounts/overview';
import type { ActivityDay } from '../../../src/domain/accounts/activity';
import { GETTING_STARTED_STEPS, type GettingStarted, type GettingStartedStep } from '../../../src/domain/accounts/gettingStarted';
import { chartCanvas, CHART_SCRIPTS, copyable, type ChartSeries } from '../components';
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
    <div>
      <dt>Recordings not copied to your storage</dt>
      <dd data-stat="failing-recording-copies">${overview.failingRecordingCopies}</dd>
    </div>
  </dl>`;
}

export interface OverviewPageInput {
  overview: Overview;
  steps: GettingStarted;
  activity: ActivityDay[];
  /** The MCP endpoint an agent connects to (the public base URL's /mcp). */
  mcpUrl: string;
}

export function overviewPage(input: OverviewPageInput, nav: PageNav): Html {
  return layout(
    'Overview',
    html`${gettingStartedPanel(input, nav)} ${overviewStats(input.overview, nav.environment)}
      <p class="quick-links">
        <a href="/portal/lines?env=${nav.environment}">Manage lines</a> ·
        <a href="/portal/deliveries?env=${nav.environment}&amp;status=failed">Failed deliveries</a> ·
        <a href="/docs">API reference</a>
      </p>
      ${activityCharts(input.activity)}`,
    nav,
  );
}

const STEP_TEXT: Record<GettingStartedStep, { title: string; todo: (env: string, mcpUrl: string) => Html }> = {
  line: {
    title: 'Create a line',
    todo: (env) => html`A line is a phone number and what answers it. <a href="/portal/lines?env=${env}">Create a line</a>.`,
  },
  key: {
    title: 'Get an API key',
    todo: (env) =>
      html`Your code and your agents authenticate with it. <a href="/portal/api-keys?env=${env}">Mint an API key</a>, then read the
        <a href="/docs">API reference</a>.`,
  },
  mcp: {
    title: 'Connect an agent by MCP',
    todo: (_env, mcpUrl) =>
      html`Point your MCP client (Claude, ChatGPT, your own agent) at this URL; it signs in with OAuth or sends an API key as
        <code>Authorization: Bearer …</code>. ${copyable('mcp-url', mcpUrl, 'the MCP URL')}`,
  },
  call: {
    title: 'Place a test call',
    todo: (env) =>
      html`Open a line and press "Place a test call", or call <code>POST /api/v1/calls</code>.
        <a href="/portal/lines?env=${env}">Open your lines</a>.`,
  },
};

/** The four steps to a first call, each ticked from what the environment holds; folded away once all are done. */
function gettingStartedPanel(input: OverviewPageInput, nav: PageNav): Html {
  const done = GETTING_STARTED_STEPS.filter((step) => input.steps[step]).length;
  const steps = html`<ol class="checklist">
    ${GETTING_STARTED_STEPS.map(
      (step) =>
        html`<li class="${input.steps[step] ? 'done' : 'todo'}" data-step="${step}" data-done="${String(input.steps[step])}">
          <span class="tick" aria-hidden="true">${input.steps[step] ? '✓' : ''}</span>
          <div>
            <strong>${STEP_TEXT[step].title}</strong> <span class="visually-hidden">${input.steps[step] ? '(done)' : '(to do)'}</span>
            ${input.steps[step] ? '' : html`<p>${STEP_TEXT[step].todo(nav.environment, input.mcpUrl)}</p>`}
          </div>
        </li>`,
    )}
  </ol>`;
  const summary = html`Getting started: <span data-stat="steps-done">${done}</span> of ${GETTING_STARTED_STEPS.length} done`;
  if (done === GETTING_STARTED_STEPS.length)
    return html`<details class="getting-started" id="getting-started">
      <summary>${summary}</summary>
      ${steps}
    </details>`;
  return html`<section class="getting-started" id="getting-started" aria-labelledby="getting-started-title">
    <h2 id="getting-started-title">${summary}</h2>
    ${steps}
  </section>`;
}

/** A number and its noun, plural unless it is one. */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The four activity charts (`chartCanvas`), each with its total in words. */
function activityCharts(days: ActivityDay[]): Html {
  const sum = (pick: (day: ActivityDay) => number) => days.reduce((total, day) => total + pick(day), 0);
  const delivered = sum((day) => day.delivered);
  const attempts = delivered + sum((day) => day.failed);
  const charts: Array<{ series: ChartSeries; title: string; total: string }> = [
    {
      series: 'calls',
      title: 'Calls per day',
      total: count(
        sum((day) => day.calls),
        'call',
      ),
    },
    { series: 'minutes', title: 'Minutes per day', total: count(Math.round(sum((day) => day.minutes) * 100) / 100, 'minute') },
    { series: 'cost', title: 'Spend per day', total: formatCents(sum((day) => day.costCents)) },
    {
      series: 'deliveries',
      title: 'Webhook deliveries per day',
      total: attempts === 0 ? 'no deliveries' : `${Math.round((delivered / attempts) * 1000) / 10}% of ${attempts} delivered`,
    },
  ];
  return html`<section aria-labelledby="activity-title">
    <h2 id="activity-title">Last ${days.length} days</h2>
    <div class="charts">
      ${charts.map(
        (chart) =>
          html`<figure class="chart-card">
            <figcaption>${chart.title}: <strong data-total="${chart.series}">${chart.total}</strong></figcaption>
            ${chartCanvas({
              id: `chart-${chart.series}`,
              label: `${chart.title} over the last ${days.length} days: ${chart.total}`,
              days,
              series: chart.series,
              small: true,
            })}
          </figure>`,
      )}
    </div>
    ${CHART_SCRIPTS}
  </section>`;
}
