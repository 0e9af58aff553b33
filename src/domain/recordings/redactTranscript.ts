import type { CountryCode } from 'libphonenumber-js';
import type { Knex } from 'knex';
import { numberKind } from '../../platform/phone';
import { recordingSettingsOf } from './rules';
import { redactEntry, redactStrings, redactText, type RedactableEntry } from './redaction';
import { DEFAULT_REDACTION, redactionOn, type RedactionSettings } from './redactionSettings';

/*
 * Redacting a call's transcript as its workspace's environment asks (`recordings.redaction`, issue 32 item 5;
 * docs/decisions/recordings.md "Redaction"): entries are redacted before they are written, so the original is never
 * stored; the caller's words in webhook payloads too when the settings say `webhooks`.
 */

/** The redaction of one call: its environment's settings as read now, and the country its national numbers are read as. */
export interface CallRedaction {
  settings: RedactionSettings;
  country: CountryCode;
  /** Whether anything is redacted from the transcript. */
  on: boolean;
  /** Whether webhook payloads are redacted too. */
  inWebhooks: boolean;
  /** The entries redacted (as they are when redaction is off). */
  entries<T extends RedactableEntry>(entries: readonly T[]): T[];
  /** A text redacted (as it is when redaction is off). */
  text(text: string): string;
}

const FALLBACK_COUNTRY: CountryCode = 'US';

export function callRedactionOf(settings: RedactionSettings, country: CountryCode = FALLBACK_COUNTRY): CallRedaction {
  const on = redactionOn(settings);
  return {
    settings,
    country,
    on,
    inWebhooks: on && settings.webhooks,
    entries: (entries) => (on ? entries.map((entry) => redactEntry(entry, settings, country)) : [...entries]),
    text: (text) => (on ? redactText(text, settings, { country }).text : text),
  };
}

/**
 * The call's redaction: its environment's `recordings.redaction`, national phone numbers read as the country of the
 * line's number (the call's `from_number` when outbound, `to_number` when inbound; US when it names none). A call
 * that does not exist redacts nothing.
 */
export async function callRedaction(db: Knex, callId: string): Promise<CallRedaction> {
  const row = (await db('calls as c')
    .leftJoin('billing_accounts as b', (on) => on.on('b.workspace_id', 'c.workspace_id').andOn('b.environment', 'c.environment'))
    .where('c.id', callId)
    .first('b.recordings', 'c.direction', 'c.from_number', 'c.to_number')) as
    { recordings: unknown; direction: string; from_number: string; to_number: string } | undefined;
  if (!row) return callRedactionOf(DEFAULT_REDACTION);
  const settings = recordingSettingsOf(row.recordings).redaction;
  if (!redactionOn(settings)) return callRedactionOf(settings);
  const lineNumber = row.direction === 'inbound' ? row.to_number : row.from_number;
  const country = (numberKind(lineNumber).country as CountryCode | undefined) ?? FALLBACK_COUNTRY;
  return callRedactionOf(settings, country);
}

/**
 * A call event's payload with the transcript text it carries redacted: `message`'s `text` and `context` (the caller's
 * words and the last turns), `interrupted`'s `partial_response_text` (the reply as heard), `tool_called`'s tool call
 * (every string of its arguments and result). Other events carry no transcript text and are returned as they are.
 */
export function redactedEventPayload(redaction: CallRedaction, type: string, payload: unknown): unknown {
  if (!redaction.on || !payload || typeof payload !== 'object') return payload;
  const value = payload as Record<string, unknown>;
  if (type === 'message') {
    const context = Array.isArray(value.context)
      ? value.context.map((entry: unknown) =>
          entry && typeof entry === 'object' && typeof (entry as { text?: unknown }).text === 'string'
            ? { ...entry, text: redaction.text((entry as { text: string }).text) }
            : entry,
        )
      : value.context;
    return {
      ...value,
      ...(typeof value.text === 'string' ? { text: redaction.text(value.text) } : {}),
      ...(context !== undefined ? { context } : {}),
    };
  }
  if (type === 'interrupted' && typeof value.partial_response_text === 'string')
    return { ...value, partial_response_text: redaction.text(value.partial_response_text) };
  // The tool call as the transcript entry keeps it (its id and name kept): arguments and result redacted alike.
  if (type === 'tool_called' && value.tool_call && typeof value.tool_call === 'object')
    return { ...value, tool_call: redactStrings(value.tool_call, 'tool', (text) => redaction.text(text)) };
  return payload;
}
