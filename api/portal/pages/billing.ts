import type { UsageBucket } from '../../../src/domain/billing/usage';
import type { toTransactionRecord } from '../../../src/domain/billing/ledger';
import { html, type Html } from '../html';
import { chartCanvas, CHART_SCRIPTS, envFields, hiddenFields, table, time } from '../components';
import { labelOf, TRANSACTION_TYPE_LABELS } from '../labels';
import { errorBox, layout, type PageNav, type ShownError } from '../layout';

type TransactionRecord = ReturnType<typeof toTransactionRecord>;

export interface BillingPageInput {
  balanceCents: number;
  heldCents: number;
  transactions: TransactionRecord[];
  /** The cursor of the next (older) page, null on the last one. */
  olderCursor: string | null;
  usage: UsageBucket[];
  card?: { brand: string; last4: string; exp_month: number; exp_year: number };
  autoCharge: { enabled: boolean; thresholdCents: number; amountCents: number };
  mayManage: boolean;
  /** What this environment's processor takes to save a card; undefined when this process saves none. */
  cardEntry?: 'card_number' | 'stripe_payment_method';
  /** A card was just saved (its last 4, as shown). */
  cardSaved?: string;
  error?: ShownError;
  form?: Record<string, string>;
}

/** US cents as dollars, e.g. -1234 → "-$12.34". */
export const dollars = (cents: number) => `${cents < 0 ? '-' : ''}$${(Math.abs(cents) / 100).toFixed(2)}`;

export function billingPage(nav: PageNav, input: BillingPageInput): Html {
  return layout(
    'Billing',
    html`${errorBox(input.error)}
      <dl class="stats">
        <div>
          <dt>Balance</dt>
          <dd data-stat="balance">${dollars(input.balanceCents)}</dd>
        </div>
        <div>
          <dt>Held for calls and messages in progress</dt>
          <dd data-stat="held">${dollars(input.heldCents)}</dd>
        </div>
        <div>
          <dt>Available</dt>
          <dd data-stat="available">${dollars(input.balanceCents - input.heldCents)}</dd>
        </div>
      </dl>
      ${usageChart(nav, input.usage)} ${paymentSection(nav, input)} ${transactionsTable(nav, input)}`,
    nav,
  );
}

/** The spend of the last days as a chart (`chartCanvas`), its total in words, and its CSV. */
function usageChart(nav: PageNav, usage: UsageBucket[]): Html {
  const data = usage.map((day) => ({ date: day.key, cost_cents: day.costCents, calls: day.calls, minutes: day.minutes }));
  const total = usage.reduce((sum, day) => sum + day.costCents, 0);
  const calls = usage.reduce((sum, day) => sum + day.calls, 0);
  return html`<section aria-labelledby="usage-title">
    <h2 id="usage-title">Usage, last ${usage.length} days</h2>
    <p>Spent: <strong data-stat="usage-cost">${dollars(total)}</strong> on ${calls} ${calls === 1 ? 'call' : 'calls'}.</p>
    ${chartCanvas({ id: 'usage-chart', label: `Cost per day over the last ${usage.length} days`, days: data, series: 'cost' })}
    ${CHART_SCRIPTS}
    <p>
      <a id="usage-csv" href="/portal/billing/usage.csv?env=${nav.environment}&amp;from=${usage[0]?.key ?? ''}" download
        >Download these ${usage.length} days' usage records as CSV</a
      >
    </p>
  </section>`;
}

function paymentSection(nav: PageNav, input: BillingPageInput): Html {
  const card = input.card
    ? html`<p id="payment-method">
        Default card: <strong>${input.card.brand}</strong> ending in <span class="mono">${input.card.last4}</span> (expires
        ${String(input.card.exp_month).padStart(2, '0')}/${input.card.exp_year})
      </p>`
    : html`<p id="payment-method">No card on file in the ${nav.environment} environment.</p>`;
  const { enabled, thresholdCents, amountCents } = input.autoCharge;
  const shown = html`<p id="auto-charge">
    Auto-charge is <strong data-stat="auto-charge">${enabled ? 'on' : 'off'}</strong>: when the balance falls below
    ${dollars(thresholdCents)}, the card is charged ${dollars(amountCents)}.
  </p>`;
  return html`<section aria-labelledby="payment-title">
    <h2 id="payment-title">Payment</h2>
    ${card} ${input.cardSaved ? html`<p class="notice" role="status" id="card-saved">Card ending in ${input.cardSaved} saved.</p>` : ''}
    ${input.mayManage ? cardForm(nav, input) : html`<p>Your role cannot change the card.</p>`} ${shown}
    ${input.mayManage ? autoChargeForm(nav, input) : html`<p>Your role cannot change auto-charge.</p>`}
  </section>`;
}

/**
 * Adding or replacing the card (docs/decisions/portal.md, issue 17). With the simulator, a test card
 * number; with Stripe, the id of a PaymentMethod saved on Stripe's own pages (no Stripe.js: nothing
 * is loaded from a CDN, and no card number reaches this server). A number is never shown back.
 */
function cardForm(nav: PageNav, input: BillingPageInput): Html {
  if (!input.cardEntry) return html`<p>This API process has no card processor configured, so cards are saved with the CLI.</p>`;
  const fields =
    input.cardEntry === 'card_number'
      ? html`<p>This environment charges through the simulator: enter a test card number.</p>
          <label for="card-number">Card number</label>
          <input id="card-number" name="number" inputmode="numeric" autocomplete="off" required />
          <label for="card-exp">Expiry (MM/YY)</label>
          <input id="card-exp" name="exp" placeholder="MM/YY" autocomplete="off" required />`
      : html`<p>
            This environment charges through Stripe. Save the card on Stripe (a SetupIntent for off-session use, attached to the workspace's
            Customer) and enter its PaymentMethod id here; the card number never reaches Switchboard.
          </p>
          <label for="card-pm">Stripe PaymentMethod id</label>
          <input id="card-pm" name="payment_method" placeholder="pm_…" autocomplete="off" required />`;
  return html`<form method="post" action="/portal/billing/card" class="card" aria-label="${input.card ? 'Replace the card' : 'Add a card'}">
    ${hiddenFields(envFields(nav))} ${fields}
    <button type="submit">${input.card ? 'Replace card' : 'Add card'}</button>
  </form>`;
}

function autoChargeForm(nav: PageNav, input: BillingPageInput): Html {
  const form = input.form;
  const { enabled, thresholdCents, amountCents } = input.autoCharge;
  const value = (field: string, cents: number) => form?.[field] ?? (cents / 100).toFixed(2);
  const checked = form ? form.enabled === 'on' : enabled;
  return html`<form method="post" action="/portal/billing/auto-charge" class="card">
    ${hiddenFields(envFields(nav))}
    <label><input type="checkbox" name="enabled" value="on" ${checked ? html`checked` : ''} /> Charge the card automatically</label>
    <label for="threshold">Threshold (US dollars)</label>
    <input id="threshold" name="threshold" inputmode="decimal" required value="${value('threshold', thresholdCents)}" />
    <label for="amount">Amount charged each time (US dollars, $5 to $1,000)</label>
    <input id="amount" name="amount" inputmode="decimal" required value="${value('amount', amountCents)}" />
    <button type="submit">Save auto-charge</button>
  </form>`;
}

function transactionsTable(nav: PageNav, input: BillingPageInput): Html {
  const body = table({
    id: 'transactions',
    caption: `Transactions of the ${nav.environment} environment, newest first`,
    rows: input.transactions,
    rowData: (t) => ({ 'transaction-id': t.id, 'transaction-type': t.type }),
    empty: html`<p id="no-transactions">No transactions.</p>`,
    columns: [
      { header: 'When', cell: (t) => time(t.created_at) },
      { header: 'Type', cell: (t) => labelOf(TRANSACTION_TYPE_LABELS, t.type) },
      { header: 'Description', cell: (t) => t.description },
      { header: 'Amount', numeric: true, cell: (t) => dollars(t.amount_cents) },
      { header: 'Balance after', numeric: true, cell: (t) => dollars(t.balance_after_cents) },
    ],
  });
  const older = input.olderCursor
    ? html`<p>
        <a id="older" href="/portal/billing?env=${nav.environment}&amp;cursor=${encodeURIComponent(input.olderCursor)}"
          >Older transactions</a
        >
      </p>`
    : '';
  return html`<section aria-labelledby="transactions-title">
    <h2 id="transactions-title">Transactions</h2>
    ${body} ${older}
  </section>`;
}
