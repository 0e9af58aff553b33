import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { CardDeclinedChargeError, PaymentRequestRejectedError } from '../../src/adapters/payments/port';
import {
  IDEMPOTENCY_METADATA_KEY,
  StripePaymentProcessor,
  parseStripeCardToken,
  stripeCardToken,
  stripeClient,
} from '../../src/adapters/payments/stripeProcessor';
import { retrieveStripeCard } from '../../src/adapters/payments/stripeCards';
import { eventually } from '../support/eventually';
import { STUB_CUSTOMER, startStripeStub, type StripeStub } from '../support/stripeStub';

/** The Stripe adapter against the contract stub (test/support/stripeStub.ts): Stripe's wire format and its error cases. */
describe('StripePaymentProcessor against the Stripe contract stub', () => {
  let stub: StripeStub;
  let processor: StripePaymentProcessor;
  const visa = stripeCardToken(STUB_CUSTOMER, 'pm_card_visa');
  beforeAll(async () => {
    stub = await startStripeStub();
    processor = new StripePaymentProcessor(stripeClient({ secretKey: stub.test.secretKey, apiBase: stub.url, timeoutMs: 2_000 }));
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    stub.test.state.reset();
  });

  it('charges off session under the idempotency key, and a replay answers the same PaymentIntent', async () => {
    const first = await processor.charge({ paymentMethodToken: visa, amountCents: 2000, idempotencyKey: 'auto:1' });
    expect(first.chargeId).toMatch(/^pi_/);
    const intent = stub.test.intents.get(first.chargeId)!;
    expect(intent).toMatchObject({
      amount: 2000,
      currency: 'usd',
      customer: STUB_CUSTOMER,
      payment_method: 'pm_card_visa',
      status: 'succeeded',
      metadata: { [IDEMPOTENCY_METADATA_KEY]: 'auto:1' },
    });
    expect(await processor.charge({ paymentMethodToken: visa, amountCents: 2000, idempotencyKey: 'auto:1' })).toEqual(first);
    expect(stub.test.intents.size).toBe(1);
    expect(stub.test.state.attempts).toBe(2);
  });

  it('confirms off session as Stripe accepts it: no redirect-based methods, so no return_url is needed', async () => {
    const { chargeId } = await processor.charge({ paymentMethodToken: visa, amountCents: 2000, idempotencyKey: 'auto:confirm' });
    expect(stub.test.intents.get(chargeId)).toMatchObject({
      status: 'succeeded',
      automatic_payment_methods: { enabled: 'true', allow_redirects: 'never' },
    });
  });

  // Stripe's refusal as Stripe words it (see test/support/stripeStub.ts), through the official library.
  it('the stub refuses, as Stripe does, a confirmation that allows redirects without a return_url', async () => {
    const stripe = stripeClient({ secretKey: stub.test.secretKey, apiBase: stub.url });
    const base = {
      amount: 2000,
      currency: 'usd',
      customer: STUB_CUSTOMER,
      payment_method: 'pm_card_visa',
      confirm: true,
      off_session: true,
    };
    const refused = await stripe.paymentIntents.create(base).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(refused).toMatchObject({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      message: expect.stringMatching(/^A `return_url` must be specified because this Payment Intent is configured to automatically accept/),
    });
    await expect(stripe.paymentIntents.create({ ...base, automatic_payment_methods: { enabled: true } })).rejects.toThrow(/return_url/);
    await expect(stripe.paymentIntents.create({ ...base, return_url: 'https://example.com/back' })).resolves.toMatchObject({
      status: 'succeeded',
    });
    // `payment_method_types` is gone from the API version the library pins, and was the third way before it.
    const withTypes = { ...base, payment_method_types: ['card'] } as Stripe.PaymentIntentCreateParams;
    await expect(stripe.paymentIntents.create(withTypes)).rejects.toMatchObject({
      code: 'parameter_unknown',
      param: 'payment_method_types',
    });
    await expect(stripe.paymentIntents.create(withTypes, { apiVersion: '2026-08-26.dahlia' })).resolves.toMatchObject({
      status: 'succeeded',
    });
  });

  it('declines an intent left in requires_action off session as authentication_required, in the answer and on lookup', async () => {
    stub.test.actionRequired = true;
    const answer = processor.charge({ paymentMethodToken: visa, amountCents: 2000, idempotencyKey: 'auto:sca' });
    await expect(answer).rejects.toBeInstanceOf(CardDeclinedChargeError);
    await expect(answer).rejects.toMatchObject({ declineCode: 'authentication_required' });
    expect([...stub.test.intents.values()][0]).toMatchObject({ status: 'requires_action' });
    expect(await processor.lookUp('auto:sca')).toEqual({ status: 'declined', declineCode: 'authentication_required' });
    // Stripe's test card that authenticates every payment is declined off session with that code (a card_error).
    const sca = stripeCardToken(STUB_CUSTOMER, 'pm_card_authenticationRequired');
    stub.test.actionRequired = false;
    await expect(processor.charge({ paymentMethodToken: sca, amountCents: 2000, idempotencyKey: 'auto:sca:2' })).rejects.toMatchObject({
      name: 'CardDeclinedChargeError',
      declineCode: 'authentication_required',
    });
  });

  it('maps a card_error to CardDeclinedChargeError with its decline_code', async () => {
    const declining = stripeCardToken(STUB_CUSTOMER, 'pm_card_chargeDeclinedInsufficientFunds');
    const failure = processor.charge({ paymentMethodToken: declining, amountCents: 2000, idempotencyKey: 'auto:2' });
    await expect(failure).rejects.toBeInstanceOf(CardDeclinedChargeError);
    await expect(failure).rejects.toMatchObject({ declineCode: 'insufficient_funds' });
    stub.test.state.setFault({ mode: 'decline', declineCode: 'stolen_card' });
    await expect(processor.charge({ paymentMethodToken: visa, amountCents: 2000, idempotencyKey: 'auto:3' })).rejects.toMatchObject({
      name: 'CardDeclinedChargeError',
      declineCode: 'stolen_card',
    });
  });

  it('maps idempotency_error, invalid requests and a bad key to PaymentRequestRejectedError', async () => {
    await processor.charge({ paymentMethodToken: visa, amountCents: 2000, idempotencyKey: 'auto:4' });
    await expect(processor.charge({ paymentMethodToken: visa, amountCents: 2500, idempotencyKey: 'auto:4' })).rejects.toThrow(
      PaymentRequestRejectedError,
    );
    await expect(processor.charge({ paymentMethodToken: visa, amountCents: 2500, idempotencyKey: 'auto:4' })).rejects.toThrow(
      /idempotency_error/,
    );
    const unknownCard = stripeCardToken(STUB_CUSTOMER, 'pm_unknown');
    await expect(processor.charge({ paymentMethodToken: unknownCard, amountCents: 2000, idempotencyKey: 'auto:5' })).rejects.toThrow(
      /resource_missing/,
    );
    await expect(processor.charge({ paymentMethodToken: 'simcard_123', amountCents: 2000, idempotencyKey: 'auto:6' })).rejects.toThrow(
      PaymentRequestRejectedError,
    );
    const wrongKey = new StripePaymentProcessor(stripeClient({ secretKey: 'sk_test_wrong', apiBase: stub.url }));
    await expect(wrongKey.charge({ paymentMethodToken: visa, amountCents: 2000, idempotencyKey: 'auto:7' })).rejects.toThrow(
      PaymentRequestRejectedError,
    );
  });

  it('maps 500s and timeouts to a plain (transient) Error', async () => {
    const transient = (err: unknown) => {
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(CardDeclinedChargeError);
      expect(err).not.toBeInstanceOf(PaymentRequestRejectedError);
      return (err as Error).message;
    };
    stub.test.state.setFault({ mode: 'error', remaining: 1 });
    const serverError = await processor.charge({ paymentMethodToken: visa, amountCents: 2000, idempotencyKey: 'auto:8' }).catch(transient);
    expect(serverError).toMatch(/Stripe unavailable/);
    // The 500 came before the endpoint ran: the retry under the same key charges.
    expect((await processor.charge({ paymentMethodToken: visa, amountCents: 2000, idempotencyKey: 'auto:8' })).chargeId).toMatch(/^pi_/);

    stub.test.state.setFault({ mode: 'timeout', holdMs: 5_000, remaining: 1 });
    const timedOut = await processor.charge({ paymentMethodToken: visa, amountCents: 2000, idempotencyKey: 'auto:9' }).catch(transient);
    expect(timedOut).toMatch(/Stripe unavailable/);
  });

  it('maps a 409 (a concurrent request under the same key) to a plain Error, and the first request still charges once', async () => {
    stub.test.state.setFault({ mode: 'timeout', holdMs: 1_000, remaining: 1 });
    const request = { paymentMethodToken: visa, amountCents: 2000, idempotencyKey: 'auto:concurrent' };
    const before = stub.test.state.attempts;
    const first = processor.charge(request);
    // The second request goes once the first is held at Stripe, not after a guess of how long that takes.
    await eventually(async () => (stub.test.state.attempts > before ? true : undefined), 5_000, 'the first request at the stub');
    const conflict = await processor.charge(request).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(Error);
    expect(conflict).not.toBeInstanceOf(PaymentRequestRejectedError);
    expect((conflict as Error).message).toMatch(/another in-progress request/);
    const charged = await first;
    expect(await processor.charge(request)).toEqual(charged);
    const underKey = [...stub.test.intents.values()].filter(
      (pi) => (pi.metadata as Record<string, string>)[IDEMPOTENCY_METADATA_KEY] === 'auto:concurrent',
    );
    expect(underKey).toHaveLength(1);
  });

  it('keeps the modes apart: a test-mode key never sees a live-mode charge', async () => {
    const live = new StripePaymentProcessor(stripeClient({ secretKey: stub.live.secretKey, apiBase: stub.url }));
    const { chargeId } = await live.charge({ paymentMethodToken: visa, amountCents: 2000, idempotencyKey: 'auto:live' });
    expect(stub.live.intents.get(chargeId)).toMatchObject({ livemode: true });
    expect(await processor.lookUp('auto:live')).toEqual({ status: 'not_found' });
    expect(await live.lookUp('auto:live')).toEqual({ status: 'succeeded', chargeId });
    stub.live.state.reset();
  });

  it('maps an unreachable Stripe to a plain Error', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const gone = new StripePaymentProcessor(stripeClient({ secretKey: stub.test.secretKey, apiBase: `http://127.0.0.1:${port}` }));
    const err = await gone.charge({ paymentMethodToken: visa, amountCents: 2000, idempotencyKey: 'auto:10' }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(PaymentRequestRejectedError);
    await expect(gone.lookUp('auto:10')).rejects.toThrow(/Stripe unavailable/);
  });

  it('looks a charge up by its key with the search API', async () => {
    const { chargeId } = await processor.charge({ paymentMethodToken: visa, amountCents: 2000, idempotencyKey: "auto:'quoted'" });
    expect(await processor.lookUp("auto:'quoted'")).toEqual({ status: 'succeeded', chargeId });
    stub.test.state.setFault({ mode: 'decline', declineCode: 'expired_card' });
    await processor.charge({ paymentMethodToken: visa, amountCents: 2000, idempotencyKey: 'auto:11' }).catch(() => undefined);
    expect(await processor.lookUp('auto:11')).toEqual({ status: 'declined', declineCode: 'expired_card' });
    expect(await processor.lookUp('auto:never')).toEqual({ status: 'not_found' });
    stub.test.searchLag = true;
    expect(await processor.lookUp("auto:'quoted'")).toEqual({ status: 'not_found' });
  });

  it('saves a card from its PaymentMethod id: customer and card details from Stripe, no card number', async () => {
    const client = stripeClient({ secretKey: stub.test.secretKey, apiBase: stub.url });
    expect(await retrieveStripeCard(client, 'pm_card_mastercard')).toEqual({
      token: `${STUB_CUSTOMER}/pm_card_mastercard`,
      brand: 'mastercard',
      last4: '4444',
      expMonth: 12,
      expYear: 2040,
    });
    stub.test.paymentMethods.set('pm_unattached', { customer: null, card: { brand: 'visa', last4: '4242', exp_month: 1, exp_year: 2041 } });
    await expect(retrieveStripeCard(client, 'pm_unattached')).rejects.toThrow(PaymentRequestRejectedError);
    await expect(retrieveStripeCard(client, 'pm_missing')).rejects.toThrow(/resource_missing/);
  });

  it('reads and writes card tokens as customer/payment method', () => {
    expect(parseStripeCardToken(stripeCardToken('cus_A1', 'pm_B2'))).toEqual({ customer: 'cus_A1', paymentMethod: 'pm_B2' });
    expect(parseStripeCardToken('pm_B2')).toBeNull();
    expect(parseStripeCardToken('simcard_x')).toBeNull();
  });
});
