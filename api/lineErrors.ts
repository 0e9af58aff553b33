import { ApiError, carrierError, errors } from './errors';
import { PROVISION_NUMBER_ACTION } from '../src/domain/lines/store';
import type { ProvisionOutcome } from '../src/domain/lines/provision';
import type { ReleaseOutcome } from '../src/domain/lines/release';
import type { RotationOutcome } from '../src/domain/lines/rotateSecret';
import type { LineUpdateOutcome } from '../src/domain/lines/update';

/** How a refused line change reads, to an API client and to an operator in the portal alike. */

export const LANGUAGE_PINNING_REFUSAL = {
  status: 400,
  code: 'hosted_mode_language_pinning_unsupported',
  message: 'Hosted lines detect the language of each utterance; they cannot be pinned to one',
};
export const languagePinningRefused = () =>
  new ApiError(LANGUAGE_PINNING_REFUSAL.status, LANGUAGE_PINNING_REFUSAL.code, LANGUAGE_PINNING_REFUSAL.message);

export const lineReleased = () => new ApiError(409, 'line_released', 'This line is released; it cannot be changed or used');

/** A line the change cannot reach: unknown to the tenant (404), or released (409). */
const lineUnusable = (refused: 'not_found' | 'released') => (refused === 'not_found' ? errors.notFound('Line') : lineReleased());

export function lineUpdateError(outcome: Extract<LineUpdateOutcome, { ok: false }>): ApiError {
  if (outcome.refused === 'invalid_fields') return errors.validation(outcome.problems);
  if (outcome.refused === 'language_pinning') return languagePinningRefused();
  return lineUnusable(outcome.refused);
}

/** How a refused line creation reads (POST /api/v1/lines and the portal's form). */
export function lineCreationError(outcome: Extract<ProvisionOutcome, { ok: false }>): ApiError {
  switch (outcome.refused) {
    case 'invalid_fields':
      return errors.validation(outcome.problems);
    case 'language_pinning':
      return languagePinningRefused();
    case 'payment_method_required':
      return new ApiError(
        402,
        'payment_method_required',
        'Add a default payment method before creating another live line; the first line is free for 30 days',
      );
    case 'not_started':
      return new ApiError(503, 'service_unavailable', 'The line could not be provisioned right now; retry shortly');
    case 'number_unavailable':
      // Nothing was created: the request may be sent again with other criteria.
      return new ApiError(422, 'number_unavailable', outcome.message, [{ field: outcome.field, message: outcome.message }]);
    case 'carrier_error':
      // Nothing was created either; the same request may pass once the operator settled it with the carrier.
      return carrierError(outcome.refusal, PROVISION_NUMBER_ACTION);
  }
}

/** How a refused release reads (DELETE /api/v1/lines/{id}). */
export function lineReleaseError(outcome: Extract<ReleaseOutcome, { ok: false }>): ApiError {
  if (outcome.refused === 'not_found') return errors.notFound('Line');
  return new ApiError(503, 'service_unavailable', 'The line could not be released right now; retry shortly');
}

/** How a refused signing-secret rotation reads (POST /api/v1/lines/{id}/webhook-secret/rotate and the portal's button). */
export function secretRotationError(outcome: Extract<RotationOutcome, { ok: false }>): ApiError {
  if (outcome.refused !== 'too_soon') return lineUnusable(outcome.refused);
  return new ApiError(409, 'secret_rotation_too_soon', 'A secret is already staged; it can be promoted 24 hours after it was staged', [
    { field: 'promotable_at', message: outcome.promotableAt },
  ]);
}
