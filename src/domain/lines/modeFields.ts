/**
 * Which of a line's settings each mode uses (issue 30 item 4): the portal's forms show only these, and a form's value
 * for another mode's field is left out of the change (hidden fields stay as they are). Every mode has its required
 * field (`REQUIRED_FIELD_BY_MODE`); the rest follow where the call workflow reads them: the begin message and the
 * voice are spoken in every mode; the model's prompt and context are a hosted line's; a pinned language, turn
 * detection and context reach a webhook line's agent; an audio line streams audio to its handler.
 * A mode not listed here (a newer one) is shown every field: the API's own checks then decide.
 */
export const MODE_DEPENDENT_FIELDS = [
  'system_prompt',
  'webhook_url',
  'audio_handler_url',
  'begin_message',
  'voice',
  'language',
  'context_limit',
  'endpointing_ms',
] as const;
export type ModeDependentField = (typeof MODE_DEPENDENT_FIELDS)[number];

const FIELDS_BY_MODE: Readonly<Record<string, readonly ModeDependentField[]>> = {
  hosted: ['system_prompt', 'begin_message', 'voice', 'context_limit', 'endpointing_ms'],
  webhook: ['webhook_url', 'begin_message', 'voice', 'language', 'context_limit', 'endpointing_ms'],
  audio: ['audio_handler_url', 'begin_message', 'voice', 'language'],
  // The agent speaks and waits through the API; an optional webhook URL takes lifecycle events (docs/decisions/calls.md, "Agent lines").
  agent: ['webhook_url', 'begin_message', 'voice', 'language', 'endpointing_ms'],
};

/** The mode-dependent fields `mode` uses (all of them for a mode this table does not know). */
export function fieldsOfMode(mode: string): readonly ModeDependentField[] {
  return FIELDS_BY_MODE[mode] ?? MODE_DEPENDENT_FIELDS;
}

/** The modes that use `field`, among `modes` (a mode the table does not know uses every field). */
export function modesUsing(field: ModeDependentField, modes: readonly string[]): string[] {
  return modes.filter((mode) => fieldsOfMode(mode).includes(field));
}
