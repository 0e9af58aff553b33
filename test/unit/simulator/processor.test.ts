import crypto from 'node:crypto';
import type http from 'node:http';
import { CardDeclinedChargeError, PaymentRequestRejectedError } from '../../../src/adapters/payments/port';
import { SimulatorPaymentProcessor } from '../../../src/adapters/payments/simulatorProcessor';
import { startSimulator } from '../../../simulator/app';
import type { CardProcessorSimulatorState } from '../../../simulator/processor';
import { randomSimulatorCredentials, simulatorControl } from '../../../dev/simulator';
import { until } from '../../support/waits';

describe('card processor simulator', () => {
  const credentials = randomSimulatorCredentials();
  let server: http.Server;
  let state: CardProcessorSimulatorState;
  let url: string;
  let processor: SimulatorPaymentProcessor;

  beforeAll(async () => {
    const sim = await startSimulator({ host: '127.0.0.1', port: 0, credentials });
    server = sim.server;
    state = sim.processor;
    url = sim.url;
    processor = new SimulatorPaymentProcessor(url, credentials.paymentsApiKey);
  });

  afterEach(async () => {
    const response = await simulatorControl(url, credentials.controlToken)('POST', '/control/processor/reset');
    expect(response.status).toBe(200);
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function control(method: string, path: string, body?: object) {
    const response = await simulatorControl(url, credentials.controlToken)(method, path, body);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: response.status, body: (await response.json()) as any };
  }

  const charge = (overrides: Partial<{ paymentMethodToken: string; amountCents: number; idempotencyKey: string }> = {}) =>
    processor.charge({ paymentMethodToken: 'simcard_test', amountCents: 1500, idempotencyKey: crypto.randomUUID(), ...overrides });

  it('charges a card', async () => {
    const { chargeId } = await charge({ idempotencyKey: 'invoice:1' });
    expect(chargeId).toMatch(/^ch_/);
    const { body } = await control('GET', '/control/processor/charges');
    expect(body.attempts).toBe(1);
    expect(body.charges).toEqual([
      expect.objectContaining({
        id: chargeId,
        idempotency_key: 'invoice:1',
        amount_cents: 1500,
        payment_method_token: 'simcard_test',
        status: 'succeeded',
        created_at: expect.any(String),
      }),
    ]);
  });

  it('is idempotent on the idempotency key', async () => {
    const first = await charge({ idempotencyKey: 'invoice:2' });
    const second = await charge({ idempotencyKey: 'invoice:2' });
    expect(second.chargeId).toBe(first.chargeId);
    const { body } = await control('GET', '/control/processor/charges');
    expect(body.charges).toHaveLength(1);
    expect(body.attempts).toBe(2);
  });

  it('refuses an idempotency key reused for a different charge', async () => {
    await charge({ idempotencyKey: 'invoice:3' });
    await expect(charge({ idempotencyKey: 'invoice:3', amountCents: 1600 })).rejects.toBeInstanceOf(PaymentRequestRejectedError);
    await expect(charge({ idempotencyKey: 'invoice:3', paymentMethodToken: 'simcard_other' })).rejects.toBeInstanceOf(
      PaymentRequestRejectedError,
    );
    const { body } = await control('GET', '/control/processor/charges');
    expect(body.charges).toHaveLength(1);
    expect(body.attempts).toBe(3);
  });

  it('declines while the decline fault is on, with its decline code', async () => {
    expect((await control('POST', '/control/processor/faults', { mode: 'decline', decline_code: 'insufficient_funds' })).status).toBe(200);
    for (let i = 0; i < 2; i += 1) {
      const error = await charge().catch((err: unknown) => err);
      expect(error).toBeInstanceOf(CardDeclinedChargeError);
      expect((error as CardDeclinedChargeError).declineCode).toBe('insufficient_funds');
    }
    await control('POST', '/control/processor/faults', { mode: 'normal' });
    await expect(charge()).resolves.toEqual({ chargeId: expect.stringMatching(/^ch_/) });
  });

  it('a counted decline applies to the next N charges; a declined key replays its decline', async () => {
    await control('POST', '/control/processor/faults', { mode: 'decline', count: 1 });
    const error = await charge({ idempotencyKey: 'invoice:4' }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(CardDeclinedChargeError);
    expect((error as CardDeclinedChargeError).declineCode).toBe('card_declined');
    await expect(charge({ idempotencyKey: 'invoice:4' })).rejects.toBeInstanceOf(CardDeclinedChargeError);
    await expect(charge({ idempotencyKey: 'invoice:5' })).resolves.toEqual({ chargeId: expect.any(String) });
    const { body } = await control('GET', '/control/processor/charges');
    expect(body.charges.map((c: { status: string }) => c.status)).toEqual(['declined', 'succeeded']);
  });

  it('declines tokens marked as declining', async () => {
    await control('POST', '/control/processor/declining-tokens', { payment_method_token: 'simcard_bad', decline_code: 'expired_card' });
    await expect(charge({ paymentMethodToken: 'simcard_bad' })).rejects.toMatchObject({
      name: 'CardDeclinedChargeError',
      declineCode: 'expired_card',
    });
    await expect(charge()).resolves.toEqual({ chargeId: expect.any(String) });
  });

  it('an error fault with count 1 fails one request transiently, then the retry succeeds', async () => {
    await control('POST', '/control/processor/faults', { mode: 'error', count: 1 });
    const error = await charge({ idempotencyKey: 'invoice:6' }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(CardDeclinedChargeError);
    expect(error).not.toBeInstanceOf(PaymentRequestRejectedError);
    const { chargeId } = await charge({ idempotencyKey: 'invoice:6' });
    const { body } = await control('GET', '/control/processor/charges');
    expect(body.charges).toEqual([expect.objectContaining({ id: chargeId })]);
    expect(body.attempts).toBe(2);
  });

  it('a timeout fault makes the client time out transiently; a retry with the same key charges once', async () => {
    await control('POST', '/control/processor/faults', { mode: 'timeout', hold_ms: 2000, count: 1 });
    const impatient = new SimulatorPaymentProcessor(url, credentials.paymentsApiKey, 300);
    const started = Date.now();
    const error = await impatient
      .charge({ paymentMethodToken: 'simcard_test', amountCents: 900, idempotencyKey: 'invoice:7' })
      .catch((err: unknown) => err);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(CardDeclinedChargeError);
    expect(error).not.toBeInstanceOf(PaymentRequestRejectedError);
    const { chargeId } = await impatient.charge({ paymentMethodToken: 'simcard_test', amountCents: 900, idempotencyKey: 'invoice:7' });
    const { body } = await control('GET', '/control/processor/charges');
    expect(body.charges).toEqual([expect.objectContaining({ id: chargeId, idempotency_key: 'invoice:7' })]);
    expect(body.attempts).toBe(2);
    expect(body.held).toBe(0);
  });

  it('reset releases held requests', async () => {
    await control('POST', '/control/processor/faults', { mode: 'timeout', hold_ms: 2000 });
    const pending = processor
      .charge({ paymentMethodToken: 'simcard_test', amountCents: 100, idempotencyKey: 'invoice:8' })
      .catch((err: unknown) => err);
    await until(() => state.heldCount > 0, 'the charge to be held');
    expect(state.heldCount).toBe(1);
    const started = Date.now();
    expect((await control('POST', '/control/processor/reset')).body).toEqual({ reset: true, released: 1 });
    const error = await pending;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(PaymentRequestRejectedError);
    expect((await control('GET', '/control/processor/charges')).body).toMatchObject({ charges: [], attempts: 0, held: 0 });
  });

  it('a drop fault charges the card but loses the answer; the lookup tells what happened', async () => {
    await control('POST', '/control/processor/faults', { mode: 'drop', count: 2 });
    for (let i = 0; i < 2; i += 1) {
      const error = await charge({ idempotencyKey: 'invoice:9' }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(CardDeclinedChargeError);
      expect(error).not.toBeInstanceOf(PaymentRequestRejectedError);
    }
    const { body } = await control('GET', '/control/processor/charges');
    expect(body.charges).toEqual([expect.objectContaining({ idempotency_key: 'invoice:9', status: 'succeeded' })]);
    expect(body.attempts).toBe(2);
    await expect(processor.lookUp('invoice:9')).resolves.toEqual({ status: 'succeeded', chargeId: body.charges[0].id });
    await expect(charge({ idempotencyKey: 'invoice:9' })).resolves.toEqual({ chargeId: body.charges[0].id });
  });

  it('looks a charge up by idempotency key: succeeded, declined, or none', async () => {
    await control('POST', '/control/processor/declining-tokens', {
      payment_method_token: 'simcard_bad',
      decline_code: 'insufficient_funds',
    });
    await expect(charge({ idempotencyKey: 'invoice:10', paymentMethodToken: 'simcard_bad' })).rejects.toBeInstanceOf(
      CardDeclinedChargeError,
    );
    await expect(processor.lookUp('invoice:10')).resolves.toEqual({ status: 'declined', declineCode: 'insufficient_funds' });
    await expect(processor.lookUp('invoice:never')).resolves.toEqual({ status: 'not_found' });
    // Unknown outcome (bad credentials, unreachable) is never "not found".
    await expect(new SimulatorPaymentProcessor(url, credentials.carrierApiKey).lookUp('invoice:never')).rejects.toThrow(/401/);
    await expect(new SimulatorPaymentProcessor('http://127.0.0.1:9', credentials.paymentsApiKey).lookUp('invoice:never')).rejects.toThrow(
      /unreachable/,
    );
  });

  it('rejects bad credentials and bad requests', async () => {
    const wrong = new SimulatorPaymentProcessor(url, credentials.carrierApiKey); // the carrier's key is not the processor's
    await expect(wrong.charge({ paymentMethodToken: 'simcard_test', amountCents: 100, idempotencyKey: 'k' })).rejects.toBeInstanceOf(
      PaymentRequestRejectedError,
    );
    await expect(charge({ amountCents: 0 })).rejects.toBeInstanceOf(PaymentRequestRejectedError);
    await expect(charge({ amountCents: 12.5 })).rejects.toBeInstanceOf(PaymentRequestRejectedError);
    await expect(charge({ paymentMethodToken: '' })).rejects.toBeInstanceOf(PaymentRequestRejectedError);
    const { body } = await control('GET', '/control/processor/charges');
    expect(body.charges).toEqual([]);
    expect(body.attempts).toBe(3);
  });

  it('validates control requests', async () => {
    expect((await control('POST', '/control/processor/faults', { mode: 'explode' })).status).toBe(400);
    expect((await control('POST', '/control/processor/faults', { mode: 'error', count: 0 })).status).toBe(400);
    expect((await control('POST', '/control/processor/faults', { mode: 'decline' })).body).toEqual({
      mode: 'decline',
      decline_code: 'card_declined',
      remaining: null,
      hold_ms: 30000,
    });
  });

  it('close releases a held request', async () => {
    const sim = await startSimulator({ host: '127.0.0.1', port: 0, credentials });
    await simulatorControl(sim.url, credentials.controlToken)('POST', '/control/processor/faults', { mode: 'timeout' });
    const pending = new SimulatorPaymentProcessor(sim.url, credentials.paymentsApiKey)
      .charge({ paymentMethodToken: 't', amountCents: 1, idempotencyKey: 'k' })
      .catch((err: unknown) => err);
    await until(() => sim.processor.heldCount > 0, 'the charge to be held');
    expect(sim.processor.heldCount).toBe(1);
    const started = Date.now();
    await new Promise<void>((resolve) => sim.server.close(() => resolve()));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await pending).toBeInstanceOf(Error);
  });
});
