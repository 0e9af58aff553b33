/**
 * What the Stripe contract stub (test/support/stripeStub.ts) takes and refuses, from Stripe's
 * reference: its test payment methods, its error envelope, its form encoding, and the create
 * requests Stripe refuses although a schema accepts them.
 *
 * Refused although a schema accepts it:
 * - a confirmation (`confirm=true`) without a `return_url` while redirect-based payment methods are
 *   allowed, i.e. without `automatic_payment_methods[enabled]=true` and
 *   `automatic_payment_methods[allow_redirects]=never` and without `payment_method_types`: 400
 *   `invalid_request_error` in Stripe's words (allow_redirects "(Default) always … return_url may be
 *   required to confirm this PaymentIntent", https://docs.stripe.com/api/payment_intents/create; the
 *   message as Stripe answers it, quoted with its request id in public reports, e.g.
 *   github.com/aschmelyun/laravel-vue-stripe-cashier/issues/4);
 * - `payment_method_types` under API version 2026-09-30.endive or later, which no longer has it (stripe-node
 *   23.0.0 changelog: "Remove support for `payment_method_types` on … `PaymentIntentCreateParams`"):
 *   400 `parameter_unknown`, the version read from `Stripe-Version` as Stripe does.
 * Off session, `pm_card_authenticationRequired` is declined `authentication_required`
 * (https://docs.stripe.com/testing, https://docs.stripe.com/declines/codes); `actionRequired` leaves
 * new intents in `requires_action` (a bank asking for authentication an off-session charge cannot give).
 */
export interface StripeStubCard {
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
}

/** A PaymentMethod; `customer` null when not attached; `authenticates`: every payment needs the cardholder. */
export interface StripeStubPaymentMethod {
  customer: string | null;
  card: StripeStubCard;
  declineCode?: string;
  authenticates?: boolean;
}

/** Stripe's documented test payment methods (https://docs.stripe.com/testing), attached to the stub's customer. */
export const TEST_PAYMENT_METHODS: Record<string, Omit<StripeStubPaymentMethod, 'customer'>> = {
  pm_card_visa: { card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2040 } },
  pm_card_mastercard: { card: { brand: 'mastercard', last4: '4444', exp_month: 12, exp_year: 2040 } },
  pm_card_chargeDeclined: { card: { brand: 'visa', last4: '0002', exp_month: 12, exp_year: 2040 }, declineCode: 'generic_decline' },
  pm_card_chargeDeclinedInsufficientFunds: {
    card: { brand: 'visa', last4: '9995', exp_month: 12, exp_year: 2040 },
    declineCode: 'insufficient_funds',
  },
  // "This card requires authentication on all transactions, regardless of how the card is set up."
  pm_card_authenticationRequired: { card: { brand: 'visa', last4: '3184', exp_month: 12, exp_year: 2040 }, authenticates: true },
};

/** The first API version without `payment_method_types` on PaymentIntent create (stripe-node 23.0.0). */
const WITHOUT_PAYMENT_METHOD_TYPES = '2026-09-30';

const RETURN_URL_REQUIRED =
  'A `return_url` must be specified because this Payment Intent is configured to automatically accept the payment methods enabled in the Dashboard, some of which may require a full page redirect to succeed. If you do not want to accept redirect-based payment methods, set `automatic_payment_methods[enabled]` to `true` and `automatic_payment_methods[allow_redirects]` to `never` when creating Setup Intents and Payment Intents.';

export function stripeError(status: number, error: Record<string, unknown>): { status: number; body: Record<string, unknown> } {
  return {
    status,
    body: { error: { ...(error.code ? { doc_url: `https://docs.stripe.com/error-codes/${String(error.code)}` } : {}), ...error } },
  };
}

/** `metadata[k]=v` form fields (Stripe's encoding of nested parameters) into objects. */
export function formFields(raw: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    const nested = /^([a-z_]+)\[([^\]]+)\]$/.exec(name);
    if (nested) ((out[nested[1]] ??= {}) as Record<string, string>)[nested[2]] = value;
    else out[name] = value;
  }
  return out;
}

/** What Stripe refuses in a PaymentIntent create before it looks at the payment method (see the header), else null. */
export function refusedCreate(
  params: Record<string, unknown>,
  apiVersion: string,
): { status: number; body: Record<string, unknown> } | null {
  for (const field of ['amount', 'currency'])
    if (params[field] === undefined)
      return stripeError(400, {
        type: 'invalid_request_error',
        code: 'parameter_missing',
        param: field,
        message: `Missing required param: ${field}.`,
      });
  if (params.payment_method_types !== undefined && apiVersion >= WITHOUT_PAYMENT_METHOD_TYPES)
    return stripeError(400, {
      type: 'invalid_request_error',
      code: 'parameter_unknown',
      param: 'payment_method_types',
      message: 'Received unknown parameter: payment_method_types',
    });
  const automatic = params.automatic_payment_methods as Record<string, string> | undefined;
  const redirectsAllowed =
    params.payment_method_types === undefined && !(automatic?.enabled === 'true' && automatic.allow_redirects === 'never');
  if (params.confirm === 'true' && params.return_url === undefined && redirectsAllowed)
    return stripeError(400, { type: 'invalid_request_error', message: RETURN_URL_REQUIRED });
  return null;
}

export const STUB_CUSTOMER = 'cus_StubCustomer01';
