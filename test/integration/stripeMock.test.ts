import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CardDeclinedChargeError, PaymentRequestRejectedError } from '../../src/adapters/payments/port';
import { StripePaymentProcessor, stripeCardToken, stripeClient } from '../../src/adapters/payments/stripeProcessor';
import { retrieveStripeCard } from '../../src/adapters/payments/stripeCards';
import { loadConfig } from '../../src/platform/config';
import { ensureStripeMock, startStripeMock, type StripeMock } from '../../dev/infra/stripeMock';

/**
 * The Stripe adapter against stripe-mock: Stripe's own OpenAPI specification validates every
 * request the adapter sends (an unknown or mistyped parameter is a 400), and the answers are
 * Stripe's canned objects in the real wire format. Outcomes stripe-mock cannot show (declines
 * with a decline code, idempotency conflicts, outages, search hits) are covered against the
 * contract stub (test/unit/stripeProcessor.test.ts).
 */
describe('StripePaymentProcessor against stripe-mock', () => {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-stripe-mock-'));
  let mock: StripeMock;
  const client = (secretKey = 'sk_test_123') => stripeClient({ secretKey, apiBase: mock.url });
  beforeAll(async () => {
    const executable = ensureStripeMock(loadConfig().toolCacheDir, (line) => process.stderr.write(`[setup] ${line}\n`));
    mock = await startStripeMock({ executable, logFile: path.join(logDir, 'stripe-mock.log') });
  }, 180_000);
  afterAll(async () => {
    await mock?.stop();
    fs.rmSync(logDir, { recursive: true, force: true });
  });

  it('sends an off-session PaymentIntent the specification accepts, and reads the intent it answers', async () => {
    const processor = new StripePaymentProcessor(client());
    // stripe-mock answers a canned intent in `requires_payment_method` with a `last_payment_error`: a refused charge.
    const err = await processor
      .charge({ paymentMethodToken: stripeCardToken('cus_123', 'pm_123'), amountCents: 2000, idempotencyKey: 'auto:mock:1' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CardDeclinedChargeError);
  });

  it('searches PaymentIntents by metadata and keeps only the intents carrying the key', async () => {
    // The canned search result holds an intent without our metadata: not ours, so nothing is found.
    expect(await new StripePaymentProcessor(client()).lookUp('auto:mock:2')).toEqual({ status: 'not_found' });
  });

  it('maps a refused credential to PaymentRequestRejectedError, and to a plain Error on lookUp', async () => {
    const processor = new StripePaymentProcessor(client('sk_live_123'));
    const token = stripeCardToken('cus_123', 'pm_123');
    await expect(processor.charge({ paymentMethodToken: token, amountCents: 2000, idempotencyKey: 'auto:mock:3' })).rejects.toThrow(
      PaymentRequestRejectedError,
    );
    const lookUp = await processor.lookUp('auto:mock:3').catch((e: unknown) => e);
    expect(lookUp).toBeInstanceOf(Error);
    expect(lookUp).not.toBeInstanceOf(PaymentRequestRejectedError);
  });

  it('reads a PaymentMethod in the real wire format, and refuses one attached to no Customer', async () => {
    // stripe-mock's canned card is not attached: it could not be charged off session.
    await expect(retrieveStripeCard(client(), 'pm_123')).rejects.toThrow(/not attached to a Stripe Customer/);
    await expect(retrieveStripeCard(client(), '4242424242424242')).rejects.toThrow(PaymentRequestRejectedError);
  });
});
