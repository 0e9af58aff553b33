import { ApiError, errors } from './errors';
import type { LineUpdateOutcome } from '../src/domain/lines/update';

/** How a refused line change reads, to an API client and to an operator in the portal alike. */

export const languagePinningRefused = () =>
  new ApiError(
    400,
    'hosted_mode_language_pinning_unsupported',
    'Hosted lines detect the language of each utterance; they cannot be pinned to one',
  );

export const lineReleased = () => new ApiError(409, 'line_released', 'This line is released; it cannot be changed or used');

export function lineUpdateError(outcome: Extract<LineUpdateOutcome, { ok: false }>): ApiError {
  switch (outcome.refused) {
    case 'not_found':
      return errors.notFound('Line');
    case 'released':
      return lineReleased();
    case 'invalid_fields':
      return errors.validation(outcome.problems);
    case 'language_pinning':
      return languagePinningRefused();
  }
}
