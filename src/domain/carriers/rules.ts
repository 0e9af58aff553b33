/**
 * What a customer sees when the carrier refuses (docs/decisions/carriers.md, "Provider refusals (issue 26)").
 * Pure: the workflows read refusals from activity failures with it, the API answers with it.
 *
 * A refusal the spec has a code for is answered with that code: no number as asked is 422
 * `number_unavailable`, a call the carrier says is not in progress is the call-control answer for an
 * ended call (`call_not_active`, or the result's `call_ended`). Any other refusal is 502
 * `carrier_error`, whose details name the provider and the provider's own code; the provider's text
 * stays in the operator's logs (it may quote account details), never in the customer's answer.
 */

/** The carriers Switchboard speaks to (CARRIER_PROVIDERS): the simulator is one as well. */
export type CarrierProviderName = 'simulator' | 'twilio' | 'telnyx';

/** Which provider refused, and its own code for the refusal (Twilio's `21631`, Telnyx's `90018`…), when it gave one. */
export interface CarrierRefusal {
  provider: CarrierProviderName;
  /**
   * The provider's code: Twilio's numeric error code, Telnyx's `errors[0].code`, the simulator's HTTP
   * status. Where the provider answers with a state rather than an error (a Telnyx number order
   * `requirements_met: false`, or failed three times), Switchboard's name for it.
   */
  code?: string;
  /** The provider said the call is not in progress (Twilio 21220, Telnyx 90018, the simulator's "not answered"). */
  callNotActive?: boolean;
}

/** The error code of a carrier refusal no spec code fits (HTTP 502). */
export const CARRIER_ERROR = 'carrier_error';

const PROVIDER_NAMES: Record<CarrierProviderName, string> = { simulator: 'the simulator', twilio: 'Twilio', telnyx: 'Telnyx' };

/** A refusal carried as data (an activity failure's details, a workflow result), or undefined if `value` is none. */
export function carrierRefusalOf(value: unknown): CarrierRefusal | undefined {
  const candidate = value as Partial<CarrierRefusal> | null | undefined;
  if (!candidate || typeof candidate !== 'object' || typeof candidate.provider !== 'string') return undefined;
  if (!Object.hasOwn(PROVIDER_NAMES, candidate.provider)) return undefined;
  return {
    provider: candidate.provider,
    ...(typeof candidate.code === 'string' && candidate.code !== '' ? { code: candidate.code } : {}),
    ...(candidate.callNotActive === true ? { callNotActive: true } : {}),
  };
}

/** The customer's sentence for a refusal of `action` ("provide a number for this line"): Switchboard's words and the provider's code. */
export function carrierRefusalMessage(refusal: CarrierRefusal, action: string): string {
  const code = refusal.code ? `error ${refusal.code}` : 'no error code given';
  return `The carrier refused to ${action} (${PROVIDER_NAMES[refusal.provider]}: ${code})`;
}

/** The `details` of a `carrier_error` envelope: the provider, and its code when it gave one. */
export function carrierRefusalDetails(refusal: CarrierRefusal): Array<{ field: string; message: string }> {
  return [{ field: 'provider', message: refusal.provider }, ...(refusal.code ? [{ field: 'provider_code', message: refusal.code }] : [])];
}
