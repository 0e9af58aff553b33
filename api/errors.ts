import { CARRIER_ERROR, carrierRefusalDetails, carrierRefusalMessage, type CarrierRefusal } from '../src/domain/carriers/rules';

/**
 * The single error envelope of the API: `{error: {code, message, details?}}`.
 * Every failure, from a malformed body to an unknown route, is raised as an ApiError
 * and rendered by the error middleware; anything else becomes a 500 `internal_error`.
 */
export interface ErrorDetail {
  field?: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): { error: { code: string; message: string; details?: ErrorDetail[] } } {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

/** A refusal of the carrier's, answered where no spec code fits (src/domain/carriers/rules.ts). */
export function carrierError(refusal: CarrierRefusal, action: string): ApiError {
  return new ApiError(502, CARRIER_ERROR, carrierRefusalMessage(refusal, action), carrierRefusalDetails(refusal));
}

export const errors = {
  notFound: (what = 'Resource') => new ApiError(404, 'not_found', `${what} not found`),
  validation: (details: ErrorDetail[], message = 'The request has invalid fields') =>
    new ApiError(422, 'validation_error', message, details),
  unauthorized: () => new ApiError(401, 'unauthorized', 'Missing Authorization header; send `Authorization: Bearer <API_KEY>`'),
  invalidApiKey: () => new ApiError(401, 'invalid_api_key', 'The API key is malformed, unknown, expired or revoked'),
  forbidden: (message: string, details?: ErrorDetail[]) => new ApiError(403, 'forbidden', message, details),
  consentAlreadyGranted: (consentType: string) =>
    new ApiError(409, 'consent_already_granted', `An active ${consentType} consent already exists for this line and number`),
  internal: () => new ApiError(500, 'internal_error', 'An unexpected error occurred; it has been logged with the request id'),
};
