import crypto from 'node:crypto';
import { authenticateStripe } from '../../api/stripeAuth';
import type { AppContext, AppDeps } from '../../api/context';
import { verifyStripeWebhook } from '../../src/adapters/payments/callbacks/stripe';
import { stripeSdkVerdict } from '../support/stripeWebhooks';

/** Stripe-Signature as Stripe documents it: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.payload">`. */
function sign(body: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

describe('Stripe webhook verification', () => {
  const secrets = { test: 'whsec_test_secret_value', live: 'whsec_live_secret_value' };
  const event = (livemode: boolean) =>
    JSON.stringify({ id: 'evt_1', object: 'event', type: 'payment_intent.succeeded', livemode, data: { object: {} } });

  it('accepts an event signed with the secret of its own mode, and tells which environment it is', () => {
    expect(verifyStripeWebhook(Buffer.from(event(false)), sign(event(false), secrets.test), secrets)).toMatchObject({
      valid: true,
      environment: 'test',
    });
    expect(verifyStripeWebhook(Buffer.from(event(true)), sign(event(true), secrets.live), secrets)).toMatchObject({
      valid: true,
      environment: 'live',
    });
  });

  it('refuses the other mode, a stale or missing signature, and any event when no secret is configured', () => {
    expect(verifyStripeWebhook(Buffer.from(event(true)), sign(event(true), secrets.test), secrets)).toMatchObject({ valid: false });
    const stale = sign(event(false), secrets.test, Math.floor(Date.now() / 1000) - 301);
    expect(verifyStripeWebhook(Buffer.from(event(false)), stale, secrets)).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/tolerance/i),
    });
    expect(verifyStripeWebhook(Buffer.from(event(false)), undefined, secrets)).toMatchObject({ valid: false });
    expect(
      verifyStripeWebhook(Buffer.from(event(false)), sign(event(false), secrets.test), { test: undefined, live: undefined }),
    ).toMatchObject({
      valid: false,
      reason: 'no webhook signing secret is configured',
    });
  });

  it('agrees with the SDK’s own verifier (Stripe.webhooks.constructEvent) on every case', () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, string]> = [
      [event(false), sign(event(false), secrets.test)],
      [event(true), sign(event(true), secrets.live)],
      [event(true), sign(event(true), secrets.test)],
      [event(false), sign(event(false), secrets.live)],
      [event(false), sign(event(false), 'whsec_forged')],
      [event(false), sign(event(false), secrets.test, now - 301)],
      [event(false), sign(event(false), secrets.test, now + 301)],
      [event(false).replace('evt_1', 'evt_2'), sign(event(false), secrets.test)],
      [event(false), `t=${now}`],
      [event(false), ''],
    ];
    for (const [body, signature] of cases) {
      const ours = verifyStripeWebhook(Buffer.from(body), signature || undefined, secrets);
      expect({ signature, ours: ours.valid ? ours.environment : null }).toEqual({
        signature,
        ours: stripeSdkVerdict({ body, signature }, secrets),
      });
    }
  });

  it('answers a refusal with 401, logs why, and leaves no event behind', () => {
    const warn = jest.fn();
    const ctx = {
      state: { rawBody: Buffer.from(event(false)), log: { warn } },
      get: (name: string) => (name === 'stripe-signature' ? sign(event(false), 'whsec_forged') : ''),
    } as unknown as AppContext;
    const deps = { config: { stripe: { webhookSecrets: secrets } } } as unknown as AppDeps;
    expect(() => authenticateStripe(ctx, deps)).toThrow(expect.objectContaining({ status: 401, code: 'unauthorized' }));
    expect(warn).toHaveBeenCalledWith({ reason: expect.any(String) }, 'stripe webhook refused');
    expect(ctx.state.stripeEvent).toBeUndefined();
  });
});
