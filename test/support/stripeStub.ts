import crypto from 'node:crypto';
import type { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { CardProcessorSimulatorState } from '../../simulator/processor';
import type { Config } from '../../src/platform/config';
import { chargeOfIntent, signStripeEvent, stripeMovements, type SignedStripeEvent, type StripeMovementBooks } from './stripeStubEvents';
import {
  STUB_CUSTOMER,
  TEST_PAYMENT_METHODS,
  formFields,
  refusedCreate,
  stripeError,
  type StripeStubPaymentMethod,
} from './stripeStubRules';

export { STUB_CUSTOMER };

/**
 * A contract stub of the parts of Stripe's API Switchboard uses, written from Stripe's public API
 * reference (https://docs.stripe.com/api), not from the project's simulator: form-encoded
 * `POST /v1/payment_intents` with `Idempotency-Key` (the first response is saved and replayed
 * with `Idempotent-Replayed: true`; the same key with other parameters is a 400
 * `idempotency_error`), `GET /v1/payment_intents/search` (a `search_result` list),
 * `GET /v1/payment_methods/:id`, the error envelope (`{ error: { type, code, decline_code, … } }`,
 * 402 for card errors with the failed PaymentIntent in `error.payment_intent`), and webhook events
 * signed as `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.payload">`. Objects and events are
 * Stripe's own examples with a scenario's fields set, and refunds and disputes happen on the stub as
 * they do on Stripe (test/support/stripeStubEvents.ts). It refuses what Stripe refuses although a
 * schema accepts it (test/support/stripeStubRules.ts).
 *
 * Bookkeeping and faults reuse the simulator's processor state (`charges` by idempotency key,
 * `attempts`, `setFault`), so a scenario written against the simulator runs here unchanged. An
 * `error` fault answers 500 before the endpoint runs (Stripe saves no result then); `timeout`
 * holds the request and then carries on.
 */
/** One Stripe account mode (test or live), told apart by the secret key a request carries. */
export interface StripeStubAccount {
  secretKey: string;
  state: CardProcessorSimulatorState;
  intents: Map<string, Record<string, unknown>>;
  /** Payment methods by id. */
  paymentMethods: Map<string, StripeStubPaymentMethod>;
  /** Customers by id, with their metadata (`GET /v1/customers/:id`). */
  customers: Map<string, { metadata: Record<string, string> }>;
  /**
   * A Customer with `metadata` (as the operator's Stripe.js or Dashboard made it) holding a card like
   * `like` (a TEST_PAYMENT_METHODS id), confirmed through a SetupIntent: the new PaymentMethod's id.
   */
  addCustomerCard(metadata: Record<string, string>, like?: string): string;
  /** Answers every search with nothing (search trails writes on Stripe by up to a minute). */
  searchLag: boolean;
  /** New intents stay `processing` (Stripe decides later and reports it by webhook). */
  processing: boolean;
  /** New intents stay `requires_action` (the bank asks the cardholder to authenticate). */
  actionRequired: boolean;
}

/** A stub account's money movements on Stripe's side (refunds, disputes), each answering its signed events. */
export type StripeStubMode = StripeStubAccount & StripeMovementBooks & ReturnType<typeof stripeMovements>;

export interface StripeStub {
  url: string;
  test: StripeStubMode;
  live: StripeStubMode;
  /** Builds a signed event the way Stripe delivers it; `timestamp` in Unix seconds. */
  signedEvent(
    type: string,
    object: Record<string, unknown>,
    secret: string,
    options?: { timestamp?: number; livemode?: boolean },
  ): SignedStripeEvent;
  close(): Promise<void>;
}

function newAccount(
  secretKey: string,
  webhookSecret: string,
): StripeStubMode & {
  saved: Map<string, { params: string; status: number; body: Record<string, unknown> }>;
  inFlight: Set<string>;
} {
  const state = new CardProcessorSimulatorState();
  const books: StripeMovementBooks = {
    livemode: !secretKey.startsWith('sk_test_'),
    webhookSecret,
    eventApiVersion: Stripe.API_VERSION,
    intents: new Map<string, Record<string, unknown>>(),
    charges: new Map(),
    refunds: new Map(),
    disputes: new Map(),
  };
  const account = Object.assign(books, stripeMovements(books), {
    secretKey,
    state,
    paymentMethods: new Map<string, StripeStubPaymentMethod>(),
    customers: new Map<string, { metadata: Record<string, string> }>(),
    addCustomerCard(metadata: Record<string, string>, like = 'pm_card_visa') {
      const customer = `cus_${crypto.randomBytes(7).toString('hex')}`;
      const id = `pm_${crypto.randomBytes(12).toString('hex')}`;
      account.customers.set(customer, { metadata });
      account.paymentMethods.set(id, { customer, ...TEST_PAYMENT_METHODS[like] });
      return id;
    },
    searchLag: false,
    processing: false,
    actionRequired: false,
    saved: new Map<string, { params: string; status: number; body: Record<string, unknown> }>(),
    inFlight: new Set<string>(),
  });
  const resetPaymentMethods = () => {
    account.paymentMethods.clear();
    for (const [id, pm] of Object.entries(TEST_PAYMENT_METHODS)) account.paymentMethods.set(id, { customer: STUB_CUSTOMER, ...pm });
  };
  resetPaymentMethods();
  const reset = state.reset.bind(state);
  state.reset = () => {
    reset();
    for (const books of [account.intents, account.charges, account.refunds, account.disputes, account.saved]) books.clear();
    account.searchLag = false;
    account.processing = false;
    account.actionRequired = false;
    account.eventApiVersion = Stripe.API_VERSION;
    resetPaymentMethods();
  };
  return account;
}

/** `webhookSecrets`: the signing secrets of the endpoints the stub's events are for (default STUB_WEBHOOK_SECRETS). */
export async function startStripeStub(options: { webhookSecrets?: { test: string; live: string } } = {}): Promise<StripeStub> {
  const random = () => crypto.randomBytes(12).toString('hex');
  const secrets = options.webhookSecrets ?? STUB_WEBHOOK_SECRETS;
  const accounts = [newAccount(`sk_test_stub${random()}`, secrets.test), newAccount(`sk_live_stub${random()}`, secrets.live)];
  type Account = (typeof accounts)[number];

  async function createIntent(
    account: Account,
    params: Record<string, unknown>,
    key: string | undefined,
    connection: EventEmitter,
    apiVersion: string,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const { state, paymentMethods, intents } = account;
    const refused = refusedCreate(params, apiVersion);
    if (refused) return refused;
    const pmId = String(params.payment_method ?? '');
    const pm = paymentMethods.get(pmId);
    if (!pm)
      return stripeError(400, {
        type: 'invalid_request_error',
        code: 'resource_missing',
        param: 'payment_method',
        message: `No such PaymentMethod: '${pmId}'`,
      });
    if (params.off_session === 'true' && pm.customer !== params.customer)
      return stripeError(400, {
        type: 'invalid_request_error',
        code: 'payment_method_not_attached',
        message: 'The PaymentMethod must be attached to the customer to be used off session.',
      });
    const fault = state.takeFault(['decline', 'timeout']);
    if (fault?.mode === 'timeout') await state.hold(fault.holdMs, connection);
    const id = `pi_${crypto.randomBytes(12).toString('hex')}`;
    const offSession = params.off_session === 'true';
    // A card that authenticates every payment: refused off session, waiting for the cardholder on session.
    const authentication = pm.authenticates ? (offSession ? 'declined' : 'action') : account.actionRequired ? 'action' : null;
    const declineCode =
      fault?.mode === 'decline' ? fault.declineCode : authentication === 'declined' ? 'authentication_required' : (pm.declineCode ?? null);
    const errorCode = declineCode === 'authentication_required' ? 'authentication_required' : 'card_declined';
    const message =
      errorCode === 'authentication_required'
        ? 'Your card was declined. This transaction requires authentication.'
        : 'Your card was declined.';
    const charge = state.record(
      { idempotencyKey: key ?? id, amountCents: Number(params.amount), paymentMethodToken: `${String(params.customer)}/${pmId}` },
      declineCode,
    );
    const intent: Record<string, unknown> = {
      id,
      object: 'payment_intent',
      amount: Number(params.amount),
      currency: params.currency,
      customer: params.customer ?? null,
      payment_method: pmId,
      confirmation_method: 'automatic',
      capture_method: 'automatic',
      created: Math.floor(Date.now() / 1000),
      description: params.description ?? null,
      livemode: !account.secretKey.startsWith('sk_test_'),
      metadata: params.metadata ?? {},
      status:
        declineCode !== null
          ? 'requires_payment_method'
          : authentication === 'action'
            ? 'requires_action'
            : account.processing
              ? 'processing'
              : 'succeeded',
      latest_charge: authentication === 'action' ? null : charge.id,
      next_action: authentication === 'action' ? { type: 'use_stripe_sdk', use_stripe_sdk: {} } : null,
      automatic_payment_methods: (params.automatic_payment_methods as Record<string, string> | undefined) ?? null,
      last_payment_error:
        declineCode === null ? null : { type: 'card_error', code: errorCode, decline_code: declineCode, message, charge: charge.id },
    };
    intents.set(id, intent);
    if (intent.latest_charge) account.charges.set(charge.id, chargeOfIntent(intent, charge.id, account.livemode));
    if (declineCode === null) return { status: 200, body: intent };
    return stripeError(402, {
      type: 'card_error',
      code: errorCode,
      decline_code: declineCode,
      message,
      charge: charge.id,
      payment_intent: intent,
    });
  }

  function search(account: Account, query: string): { status: number; body: Record<string, unknown> } {
    const match = /^metadata\['([^']+)'\]:'((?:[^'\\]|\\.)*)'$/.exec(query);
    if (!match)
      return stripeError(400, { type: 'invalid_request_error', code: 'search_query_invalid', message: `Unsupported query: ${query}` });
    const value = match[2].replace(/\\(.)/g, '$1');
    const data = account.searchLag
      ? []
      : [...account.intents.values()].filter((pi) => (pi.metadata as Record<string, string>)[match[1]] === value);
    return { status: 200, body: { object: 'search_result', url: '/v1/payment_intents/search', has_more: false, next_page: null, data } };
  }

  async function answer(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    raw: string,
  ): Promise<{ status: number; body: Record<string, unknown>; replayed?: boolean }> {
    const account = accounts.find((a) => req.headers.authorization === `Bearer ${a.secretKey}`);
    if (!account) return stripeError(401, { type: 'invalid_request_error', message: 'Invalid API Key provided: ***' });
    const { state, saved, inFlight, paymentMethods } = account;
    const url = new URL(req.url ?? '/', 'http://stub');
    if (req.method === 'POST' && url.pathname === '/v1/payment_intents') {
      state.attempts += 1;
      // A failure before the endpoint runs: Stripe saves no result for the key.
      if (state.takeFault(['error'])) return stripeError(500, { type: 'api_error', message: 'An unknown error occurred' });
      const key = req.headers['idempotency-key'] as string | undefined;
      const first = key ? saved.get(key) : undefined;
      if (first) {
        if (first.params !== raw)
          return stripeError(400, {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          });
        return { ...first, replayed: true };
      }
      if (key && inFlight.has(key))
        return stripeError(409, {
          type: 'invalid_request_error',
          code: 'idempotency_key_in_use',
          message: 'There is currently another in-progress request using this Idempotent Key.',
        });
      if (key) inFlight.add(key);
      try {
        const apiVersion = (req.headers['stripe-version'] as string | undefined) ?? Stripe.API_VERSION;
        const result = await createIntent(account, formFields(raw), key, res, apiVersion);
        if (key) saved.set(key, { params: raw, ...result });
        return result;
      } finally {
        if (key) inFlight.delete(key);
      }
    }
    if (req.method === 'GET' && url.pathname === '/v1/payment_intents/search') return search(account, url.searchParams.get('query') ?? '');
    const pm = /^\/v1\/payment_methods\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && pm) {
      const found = paymentMethods.get(pm[1]);
      if (!found)
        return stripeError(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such PaymentMethod: '${pm[1]}'` });
      return { status: 200, body: { id: pm[1], object: 'payment_method', type: 'card', customer: found.customer, card: found.card } };
    }
    const cus = /^\/v1\/customers\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && cus) {
      const found = account.customers.get(cus[1]) ?? (cus[1] === STUB_CUSTOMER ? { metadata: {} } : undefined);
      if (!found)
        return stripeError(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such customer: '${cus[1]}'` });
      return { status: 200, body: { id: cus[1], object: 'customer', livemode: account === accounts[1], metadata: found.metadata } };
    }
    return stripeError(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${url.pathname}).` });
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void answer(req, res, Buffer.concat(chunks).toString('utf8')).then(
        (result) => {
          if (res.destroyed) return;
          res.writeHead(result.status, {
            'content-type': 'application/json',
            'request-id': `req_${crypto.randomBytes(7).toString('hex')}`,
            ...(result.replayed ? { 'idempotent-replayed': 'true' } : {}),
          });
          res.end(JSON.stringify(result.body));
        },
        (err: unknown) => {
          res.writeHead(500);
          res.end(String(err));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const [test, live] = accounts;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    test,
    live,
    signedEvent: (type, object, secret, opts = {}) => signStripeEvent(type, object, secret, opts),
    async close() {
      for (const account of accounts) account.state.releaseHeld();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Harness overrides that charge both environments through a stub started later (in a `beforeAll`
 * registered before the harness's): the Stripe settings are read when the worker starts.
 */
/** The signing secrets of the stub's webhook endpoints (one per mode), given to the API by `stripeStubOverrides`. */
export const STUB_WEBHOOK_SECRETS = {
  test: `whsec_${crypto.randomBytes(24).toString('hex')}`,
  live: `whsec_${crypto.randomBytes(24).toString('hex')}`,
};

export function stripeStubOverrides(stub: () => StripeStub): Pick<Config, 'paymentsProviders' | 'stripe'> {
  return {
    paymentsProviders: { test: 'stripe', live: 'stripe' },
    stripe: {
      get secretKeys() {
        return { test: stub().test.secretKey, live: stub().live.secretKey };
      },
      webhookSecrets: STUB_WEBHOOK_SECRETS,
      get apiBase() {
        return stub().url;
      },
    },
  };
}
