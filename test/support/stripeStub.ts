import crypto from 'node:crypto';
import type { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CardProcessorSimulatorState } from '../../simulator/processor';
import type { Config } from '../../src/platform/config';

/**
 * A contract stub of the parts of Stripe's API Switchboard uses, written from Stripe's public API
 * reference (https://docs.stripe.com/api), not from the project's simulator: form-encoded
 * `POST /v1/payment_intents` with `Idempotency-Key` (the first response is saved and replayed
 * with `Idempotent-Replayed: true`; the same key with other parameters is a 400
 * `idempotency_error`), `GET /v1/payment_intents/search` (a `search_result` list),
 * `GET /v1/payment_methods/:id`, the error envelope (`{ error: { type, code, decline_code, … } }`,
 * 402 for card errors with the failed PaymentIntent in `error.payment_intent`), and webhook events
 * signed as `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.payload">`.
 *
 * Bookkeeping and faults reuse the simulator's processor state (`charges` by idempotency key,
 * `attempts`, `setFault`), so a scenario written against the simulator runs here unchanged. An
 * `error` fault answers 500 before the endpoint runs (Stripe saves no result then); `timeout`
 * holds the request and then carries on.
 */
export interface StripeStubCard {
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
}

/** One Stripe account mode (test or live), told apart by the secret key a request carries. */
export interface StripeStubAccount {
  secretKey: string;
  state: CardProcessorSimulatorState;
  intents: Map<string, Record<string, unknown>>;
  /** Payment methods by id; `customer` null when not attached. */
  paymentMethods: Map<string, { customer: string | null; card: StripeStubCard; declineCode?: string }>;
  /** Answers every search with nothing (search trails writes on Stripe by up to a minute). */
  searchLag: boolean;
  /** New intents stay `processing` (Stripe decides later and reports it by webhook). */
  processing: boolean;
}

export interface StripeStub {
  url: string;
  test: StripeStubAccount;
  live: StripeStubAccount;
  /** Builds a signed event the way Stripe delivers it; `timestamp` in Unix seconds. */
  signedEvent(
    type: string,
    intent: Record<string, unknown>,
    secret: string,
    options?: { timestamp?: number; livemode?: boolean },
  ): { body: string; signature: string };
  close(): Promise<void>;
}

export const STUB_CUSTOMER = 'cus_StubCustomer01';

/** Stripe's documented test payment methods (https://docs.stripe.com/testing), attached to the stub's customer. */
const TEST_PAYMENT_METHODS: Record<string, { card: StripeStubCard; declineCode?: string }> = {
  pm_card_visa: { card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2040 } },
  pm_card_mastercard: { card: { brand: 'mastercard', last4: '4444', exp_month: 12, exp_year: 2040 } },
  pm_card_chargeDeclined: { card: { brand: 'visa', last4: '0002', exp_month: 12, exp_year: 2040 }, declineCode: 'generic_decline' },
  pm_card_chargeDeclinedInsufficientFunds: {
    card: { brand: 'visa', last4: '9995', exp_month: 12, exp_year: 2040 },
    declineCode: 'insufficient_funds',
  },
};

function stripeError(status: number, error: Record<string, unknown>): { status: number; body: Record<string, unknown> } {
  return { status, body: { error: { doc_url: `https://docs.stripe.com/error-codes/${error.code ?? ''}`, ...error } } };
}

/** `metadata[k]=v` form fields (Stripe's encoding of nested parameters) into objects. */
function formFields(raw: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    const nested = /^([a-z_]+)\[([^\]]+)\]$/.exec(name);
    if (nested) ((out[nested[1]] ??= {}) as Record<string, string>)[nested[2]] = value;
    else out[name] = value;
  }
  return out;
}

function newAccount(secretKey: string): StripeStubAccount & {
  saved: Map<string, { params: string; status: number; body: Record<string, unknown> }>;
  inFlight: Set<string>;
} {
  const state = new CardProcessorSimulatorState();
  const account = {
    secretKey,
    state,
    intents: new Map<string, Record<string, unknown>>(),
    paymentMethods: new Map<string, { customer: string | null; card: StripeStubCard; declineCode?: string }>(),
    searchLag: false,
    processing: false,
    saved: new Map<string, { params: string; status: number; body: Record<string, unknown> }>(),
    inFlight: new Set<string>(),
  };
  const resetPaymentMethods = () => {
    account.paymentMethods.clear();
    for (const [id, pm] of Object.entries(TEST_PAYMENT_METHODS)) account.paymentMethods.set(id, { customer: STUB_CUSTOMER, ...pm });
  };
  resetPaymentMethods();
  const reset = state.reset.bind(state);
  state.reset = () => {
    reset();
    account.intents.clear();
    account.saved.clear();
    account.searchLag = false;
    account.processing = false;
    resetPaymentMethods();
  };
  return account;
}

export async function startStripeStub(): Promise<StripeStub> {
  const random = () => crypto.randomBytes(12).toString('hex');
  const accounts = [newAccount(`sk_test_stub${random()}`), newAccount(`sk_live_stub${random()}`)];
  type Account = (typeof accounts)[number];

  async function createIntent(
    account: Account,
    params: Record<string, unknown>,
    key: string | undefined,
    connection: EventEmitter,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const { state, paymentMethods, intents } = account;
    for (const field of ['amount', 'currency'])
      if (params[field] === undefined)
        return stripeError(400, {
          type: 'invalid_request_error',
          code: 'parameter_missing',
          param: field,
          message: `Missing required param: ${field}.`,
        });
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
    const declineCode = fault?.mode === 'decline' ? fault.declineCode : (pm.declineCode ?? null);
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
      status: declineCode !== null ? 'requires_payment_method' : account.processing ? 'processing' : 'succeeded',
      latest_charge: charge.id,
      last_payment_error:
        declineCode === null
          ? null
          : { type: 'card_error', code: 'card_declined', decline_code: declineCode, message: 'Your card was declined.', charge: charge.id },
    };
    intents.set(id, intent);
    if (declineCode === null) return { status: 200, body: intent };
    return stripeError(402, {
      type: 'card_error',
      code: 'card_declined',
      decline_code: declineCode,
      message: 'Your card was declined.',
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
        const result = await createIntent(account, formFields(raw), key, res);
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
    signedEvent(type, intent, secret, opts = {}) {
      const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
      const body = JSON.stringify({
        id: `evt_${crypto.randomBytes(12).toString('hex')}`,
        object: 'event',
        api_version: '2026-10-28.endive',
        created: timestamp,
        data: { object: intent },
        livemode: opts.livemode ?? false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type,
      });
      const v1 = crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
      return { body, signature: `t=${timestamp},v1=${v1}` };
    },
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
