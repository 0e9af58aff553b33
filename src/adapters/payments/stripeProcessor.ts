import type Stripe from 'stripe';
import { CardDeclinedChargeError, PaymentRequestRejectedError, type ChargeLookup, type ChargeRequest, type PaymentProcessor } from './port';

/** The PaymentIntent metadata field that carries the charge decision's idempotency key (found again by search and webhooks). */
export const IDEMPOTENCY_METADATA_KEY = 'switchboard_idempotency_key';

export interface StripeClientOptions {
  /** `sk_test_…` or `sk_live_…` (a restricted `rk_…` key works too). */
  secretKey: string;
  /** Another API base than https://api.stripe.com (stripe-mock, a contract stub). */
  apiBase?: string;
  timeoutMs?: number;
}

/**
 * The stripe package, loaded on first use: a process (or test) that never talks to Stripe does not pay for it at
 * start. Its CommonJS export is the class itself.
 */
let sdk: typeof Stripe | undefined;
export function stripeSdk(): typeof Stripe {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, as said above
  return (sdk ??= require('stripe') as typeof Stripe);
}

/**
 * A Stripe client for one environment. The library's own retries are off: the activity retry
 * policy retries under the same Idempotency-Key, and two retry loops would multiply the wait.
 */
export function stripeClient(options: StripeClientOptions): Stripe {
  const base = options.apiBase ? new URL(options.apiBase) : undefined;
  const protocol = base?.protocol === 'http:' ? 'http' : 'https';
  return new (stripeSdk())(options.secretKey, {
    maxNetworkRetries: 0,
    timeout: options.timeoutMs ?? 10_000,
    appInfo: { name: 'Switchboard' },
    ...(base ? { host: base.hostname, port: base.port || (protocol === 'http' ? 80 : 443), protocol } : {}),
  });
}

/**
 * A saved Stripe card is `<customer>/<payment method>` (`cus_…/pm_…`): an off-session charge
 * needs both, and only ids ever reach Switchboard (the card was entered on Stripe).
 */
export function stripeCardToken(customerId: string, paymentMethodId: string): string {
  return `${customerId}/${paymentMethodId}`;
}

export function parseStripeCardToken(token: string): { customer: string; paymentMethod: string } | null {
  const match = /^(cus_[A-Za-z0-9_]+)\/(pm_[A-Za-z0-9_]+)$/.exec(token);
  return match ? { customer: match[1], paymentMethod: match[2] } : null;
}

/**
 * Maps an error of the Stripe library onto the port's three kinds (src/adapters/payments/port.ts):
 * a card_error is a decline, a request Stripe refuses (invalid, idempotency misuse, bad key) is
 * final, and everything else (rate limits, 409 conflicts of concurrent requests, 5xx, network,
 * timeouts) is transient.
 */
export function mapStripeError(err: unknown): Error {
  const { errors } = stripeSdk();
  if (err instanceof errors.StripeCardError) return new CardDeclinedChargeError(err.decline_code ?? err.code ?? 'card_declined');
  if (err instanceof errors.StripeError && err.statusCode !== 409) {
    if (
      err instanceof errors.StripeInvalidRequestError ||
      err instanceof errors.StripeIdempotencyError ||
      err instanceof errors.StripeAuthenticationError ||
      err instanceof errors.StripePermissionError
    )
      return new PaymentRequestRejectedError(
        `Stripe refused the request: ${err.rawType ?? err.type} ${err.code ?? ''} ${err.message}`.trim(),
      );
  }
  const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return new Error(`Stripe unavailable: ${reason}`, { cause: err });
}

/**
 * What a PaymentIntent of Switchboard's says of its charge; `null` while Stripe has not decided
 * (`processing`). Every such intent is confirmed off session, so one that asks for an action
 * (`requires_action`: the bank wants the cardholder to authenticate) will never go further: the
 * cardholder is not there, and Switchboard never hands out the intent's client secret. That is
 * the decline Stripe documents for off-session charges that need authentication,
 * `authentication_required` (https://docs.stripe.com/declines/codes), not an undecided charge.
 */
export function outcomeOfIntent(intent: Stripe.PaymentIntent): Exclude<ChargeLookup, { status: 'not_found' }> | null {
  if (intent.status === 'succeeded') return { status: 'succeeded', chargeId: intent.id };
  if (intent.status === 'canceled') return { status: 'declined', declineCode: 'payment_intent_canceled' };
  if (intent.status === 'requires_action') return { status: 'declined', declineCode: 'authentication_required' };
  const error = intent.last_payment_error;
  if (intent.status === 'requires_payment_method' && error)
    return { status: 'declined', declineCode: error.decline_code ?? error.code ?? 'card_declined' };
  return null;
}

/**
 * The card processor on Stripe: one off-session PaymentIntent per charge decision, confirmed at
 * once, with the decision's key as Stripe's Idempotency-Key and in the intent's metadata. The
 * charge id Switchboard records is the PaymentIntent's id (what webhooks and search return).
 */
export class StripePaymentProcessor implements PaymentProcessor {
  constructor(private readonly stripe: Stripe) {}

  async charge(request: ChargeRequest): Promise<{ chargeId: string }> {
    const card = parseStripeCardToken(request.paymentMethodToken);
    if (!card) throw new PaymentRequestRejectedError('the saved card is not a Stripe card (expected cus_…/pm_…)');
    let intent: Stripe.PaymentIntent;
    try {
      intent = await this.stripe.paymentIntents.create(
        {
          amount: request.amountCents,
          currency: 'usd',
          customer: card.customer,
          payment_method: card.paymentMethod,
          confirm: true,
          off_session: true,
          // Confirming without a `return_url` is refused while redirect-based payment methods are
          // allowed, which is the default (`allow_redirects: 'always'`); a saved card never
          // redirects. `payment_method_types` is gone from the API version the library pins
          // (2026-09-30.endive and later), so this is what says it (docs/decisions/billing.md, issue 26).
          automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
          description: 'Switchboard automatic recharge',
          metadata: { [IDEMPOTENCY_METADATA_KEY]: request.idempotencyKey },
        },
        { idempotencyKey: request.idempotencyKey },
      );
    } catch (err) {
      throw mapStripeError(err);
    }
    const outcome = outcomeOfIntent(intent);
    if (outcome?.status === 'succeeded') return { chargeId: outcome.chargeId };
    if (outcome?.status === 'declined') throw new CardDeclinedChargeError(outcome.declineCode);
    // `processing`: undecided, so asked again later; the `payment_intent.*` webhook settles it meanwhile.
    throw new Error(`Stripe has not decided PaymentIntent ${intent.id} yet (${intent.status})`);
  }

  /**
   * Finds the PaymentIntent by the key in its metadata with the search API. Search trails writes
   * by up to a minute: a `not_found` right after a lost answer only makes the caller send the
   * charge again under the same Idempotency-Key, which Stripe answers with the first intent.
   */
  async lookUp(idempotencyKey: string): Promise<ChargeLookup> {
    let found: Stripe.ApiSearchResult<Stripe.PaymentIntent>;
    try {
      found = await this.stripe.paymentIntents.search({
        query: `metadata['${IDEMPOTENCY_METADATA_KEY}']:'${idempotencyKey.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
        limit: 10,
      });
    } catch (err) {
      const mapped = mapStripeError(err);
      throw mapped instanceof PaymentRequestRejectedError || mapped instanceof CardDeclinedChargeError
        ? new Error(`Stripe lookup refused: ${mapped.message}`, { cause: err })
        : mapped;
    }
    // Only intents that carry this very key count, whatever the search matched.
    const outcomes = found.data.filter((intent) => intent.metadata?.[IDEMPOTENCY_METADATA_KEY] === idempotencyKey).map(outcomeOfIntent);
    const succeeded = outcomes.find((o) => o?.status === 'succeeded');
    if (succeeded) return succeeded;
    if (outcomes.some((o) => o === null)) throw new Error('Stripe has not decided the charge under this key yet');
    return outcomes[0] ?? { status: 'not_found' };
  }
}
