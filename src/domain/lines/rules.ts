import { findVoice, VOICE_SLUG_PATTERN } from '../voices/catalog';

/**
 * Line rules of the spec ("Line", rules 1-5) in one place, used by routes, activities and tests. `agent` is ours
 * (docs/decisions/calls.md, "Agent lines"): the customer's agent drives every call through live control.
 */
export const LINE_MODES = ['hosted', 'webhook', 'audio', 'agent'] as const;
export type LineMode = (typeof LINE_MODES)[number];
/** `text` is the legacy name of `webhook`; it is accepted on input and stored as `webhook`. */
export const ACCEPTED_MODES = [...LINE_MODES, 'text'] as const;

export const LANGUAGES = ['multi', 'en', 'he', 'es', 'ar', 'ru', 'fr', 'de', 'pt', 'it', 'pl', 'nl', 'tr', 'ja', 'zh'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'multi';

export const LINE_STATUSES = ['provisioning', 'active', 'suspended', 'released'] as const;
export type LineStatus = (typeof LINE_STATUSES)[number];

export const FIRST_LINE_GRACE_DAYS = 30;
/** A staged signing secret may be promoted by a rotate at least this long after it was staged. */
export const PROMOTION_DELAY_MS = 24 * 60 * 60 * 1000;

export function normalizeMode(mode: string): LineMode {
  return mode === 'text' ? 'webhook' : (mode as LineMode);
}

/** The field a mode cannot work without (an agent line needs none: its agent drives calls through the API). */
export const REQUIRED_FIELD_BY_MODE: Readonly<Partial<Record<LineMode, 'system_prompt' | 'webhook_url' | 'audio_handler_url'>>> = {
  hosted: 'system_prompt',
  webhook: 'webhook_url',
  audio: 'audio_handler_url',
};

/**
 * Fields that would hand an agent line's calls to another driver (a model, its tools, an audio socket): refused
 * rather than kept without effect, so nobody believes a prompt runs on a line where the agent talks.
 */
export const AGENT_LINE_REFUSED_FIELDS = ['system_prompt', 'audio_handler_url', 'tools'] as const;
export const AGENT_LINE_REFUSED_FIELD_MESSAGE = 'Not used on an agent line (its agent drives each call): leave it out, or null to clear it';

export interface LineFieldProblem {
  field: string;
  message: string;
}

/**
 * Checks that go beyond the JSON schema: per-mode requirements (an agent line's refused fields
 * included), URL schemes and the voice catalog. A webhook line may lose its URL after creation (calls then answer `line_no_webhook`),
 * so `webhookUrlOptional` relaxes that one requirement for updates that keep the mode.
 */
export function lineFieldProblems(
  line: {
    mode: LineMode;
    system_prompt?: string | null;
    webhook_url?: string | null;
    audio_handler_url?: string | null;
    status_callback_url?: string | null;
    voice?: string | null;
    tools?: readonly unknown[] | null;
  },
  options: { webhookUrlOptional?: boolean } = {},
): LineFieldProblem[] {
  // A form posts its mode as typed (the API's schema refuses an unknown one before this).
  if (!(ACCEPTED_MODES as readonly string[]).includes(line.mode))
    return [{ field: 'mode', message: `Must be one of: ${ACCEPTED_MODES.join(', ')}` }];
  const problems: LineFieldProblem[] = [];
  const required = REQUIRED_FIELD_BY_MODE[line.mode];
  const value = required ? line[required] : undefined;
  const optional = !required || (required === 'webhook_url' && options.webhookUrlOptional);
  if (!optional && (typeof value !== 'string' || value.trim() === '')) {
    problems.push({ field: required, message: `Required when mode is ${line.mode}` });
  }
  if (line.mode === 'agent') {
    for (const field of AGENT_LINE_REFUSED_FIELDS) {
      if (line[field] !== undefined && line[field] !== null) problems.push({ field, message: AGENT_LINE_REFUSED_FIELD_MESSAGE });
    }
  }
  for (const field of ['webhook_url', 'status_callback_url'] as const) {
    const url = line[field];
    if (url && !hasScheme(url, ['http:', 'https:'])) problems.push({ field, message: 'Must be an http or https URL' });
  }
  if (line.audio_handler_url && !hasScheme(line.audio_handler_url, ['ws:', 'wss:'])) {
    problems.push({ field: 'audio_handler_url', message: 'Must be a ws or wss URL' });
  }
  if (line.voice && !new RegExp(VOICE_SLUG_PATTERN).test(line.voice)) {
    problems.push({ field: 'voice', message: 'Must be a voice slug: lowercase letters, digits and -, 1-40 characters' });
  } else if (line.voice && !findVoice(line.voice)) {
    problems.push({ field: 'voice', message: 'Unknown voice; see GET /api/v1/voices' });
  }
  return problems;
}

/** Whether `value` is an absolute URL with one of `schemes` (`'https:'`) and a host. */
export function hasScheme(value: string, schemes: string[]): boolean {
  try {
    const url = new URL(value);
    return schemes.includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Spec rule 2: hosted lines detect language themselves, so *setting* `language` on one is refused,
 * `multi` included (the spec wins over the client's "must keep multi"). Not sending it is fine.
 */
export function isLanguagePinningRefused(mode: LineMode, language: string | undefined): boolean {
  return mode === 'hosted' && language !== undefined;
}

/** Trims the voice slug; an empty string clears it. */
export function normalizeVoice(voice: string | null | undefined): string | null | undefined {
  if (voice === undefined || voice === null) return voice;
  const trimmed = voice.trim();
  return trimmed === '' ? null : trimmed;
}

export interface LineUpdate {
  [field: string]: unknown;
  mode?: string;
  language?: string;
  webhook_url?: string | null;
}

/**
 * What a PATCH changes, with the side effects the client relies on: switching to `audio`
 * clears `webhook_url` unless the same body sets it; switching from webhook to hosted clears
 * a language pin (hosted lines never pin).
 */
export function lineUpdateChanges(
  current: { mode: LineMode; webhook_url: string | null; language: string },
  update: LineUpdate,
): Record<string, unknown> {
  const changes: Record<string, unknown> = { ...update };
  if (update.mode !== undefined) {
    const mode = normalizeMode(update.mode);
    changes.mode = mode;
    if (mode === 'audio' && current.mode !== 'audio' && current.webhook_url !== null && !('webhook_url' in update))
      changes.webhook_url = null;
    if (mode === 'hosted' && current.mode !== 'hosted' && !('language' in update)) changes.language = DEFAULT_LANGUAGE;
  }
  if ('voice' in update) changes.voice = normalizeVoice(update.voice as string | null);
  return changes;
}
