import { CarrierAuthError, CarrierRejectedError } from '../port';

/** Twilio's 4xx (but 408, 429) is a refusal it will repeat; anything else (5xx, 408, 429, network) may pass on a retry. */
export async function twilioCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw toRefusal(err, what);
  }
}

/** Twilio's 21220 "Invalid call state": an operation on a call that is not in progress (twilio.com/docs/errors/21220). */
export const TWILIO_CALL_NOT_IN_PROGRESS = 21220;

/** A Twilio failure as the port reports it: a `CarrierRejectedError` naming Twilio's code, or a transient error. */
export function toRefusal(err: unknown, what = 'answer'): Error {
  if (err instanceof CarrierRejectedError) return err;
  const status = (err as { status?: number }).status;
  if (typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429) {
    const code = (err as { code?: number }).code;
    const message = `Twilio refused to ${what}: ${status}${code ? ` (${code})` : ''} ${(err as Error).message}`;
    // 401 (20003 "Authenticate"): the account SID and auth token; 403: what they may not do (20008, test credentials).
    if (status === 401 || status === 403)
      return new CarrierAuthError(message, { provider: 'twilio', ...(code ? { code: String(code) } : {}) });
    return new CarrierRejectedError(message, {
      provider: 'twilio',
      ...(code ? { code: String(code) } : {}),
      ...(code === TWILIO_CALL_NOT_IN_PROGRESS ? { callNotActive: true } : {}),
    });
  }
  return new Error(`Twilio error trying to ${what}: ${status ?? ''} ${(err as Error).message}`.trim(), { cause: err });
}

/** A removal that found nothing to remove has nothing left to do. */
export async function ignoreNotFound(call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (err) {
    if ((err as { status?: number }).status !== 404) throw err;
  }
}
