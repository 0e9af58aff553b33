import { errors } from './errors';
import { toE164 } from '../src/platform/phone';

/** What a request (API or portal) is told about a phone number that does not parse. */
export const INVALID_PHONE_MESSAGE = 'Must be a valid phone number, preferably E.164 (+14155550123)';

/** The E.164 form of a requested phone number, or 422 `validation_error` naming `field`. */
export function phoneOrFail(value: string, field = 'phone_number'): string {
  const e164 = toE164(value);
  if (!e164) throw errors.validation([{ field, message: INVALID_PHONE_MESSAGE }]);
  return e164;
}
