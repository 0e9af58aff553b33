import { parseJsonObject } from '../../platform/json';
import { CardDeclinedChargeError, PaymentRequestRejectedError, type ChargeLookup, type ChargeRequest, type PaymentProcessor } from './port';

/** The default card processor: the simulator process's processor API over HTTP, with PAYMENTS_API_KEY as its bearer. */
export class SimulatorPaymentProcessor implements PaymentProcessor {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async charge(request: ChargeRequest): Promise<{ chargeId: string }> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(new URL('/processor/v1/charges', this.baseUrl), {
        method: 'POST',
        headers: { authorization: `Bearer ${this.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          payment_method_token: request.paymentMethodToken,
          amount_cents: request.amountCents,
          currency: 'usd',
          idempotency_key: request.idempotencyKey,
        }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (err) {
      // Network failure or timeout: transient, and the charge may have gone through.
      const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      throw new Error(`card processor unreachable: ${reason}`, { cause: err });
    }
    const body = parseJsonObject(text);
    if (response.status === 402) {
      throw new CardDeclinedChargeError(typeof body.decline_code === 'string' ? body.decline_code : 'card_declined');
    }
    if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
      throw new PaymentRequestRejectedError(`card processor refused the charge: ${response.status} ${text.slice(0, 200)}`);
    }
    if (!response.ok) throw new Error(`card processor error: ${response.status}`);
    if (typeof body.id !== 'string') throw new Error('card processor answered without a charge id');
    return { chargeId: body.id };
  }

  async lookUp(idempotencyKey: string): Promise<ChargeLookup> {
    const url = new URL('/processor/v1/charges/lookup', this.baseUrl);
    url.searchParams.set('idempotency_key', idempotencyKey);
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, { headers: { authorization: `Bearer ${this.apiKey}` }, signal: AbortSignal.timeout(this.timeoutMs) });
      text = await response.text();
    } catch (err) {
      const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      throw new Error(`card processor unreachable: ${reason}`, { cause: err });
    }
    if (response.status === 404) return { status: 'not_found' };
    // Anything but a clear answer leaves the outcome unknown: the caller asks again later.
    if (!response.ok) throw new Error(`card processor lookup failed: ${response.status}`);
    const body = parseJsonObject(text);
    if (body.status === 'succeeded' && typeof body.id === 'string') return { status: 'succeeded', chargeId: body.id };
    if (body.status === 'declined')
      return { status: 'declined', declineCode: typeof body.decline_code === 'string' ? body.decline_code : 'card_declined' };
    throw new Error('card processor answered a lookup without a charge status');
  }
}
