import type { CallDialParams } from 'telnyx/resources/calls/calls';
import type { GoogleTranscriptionLanguage } from 'telnyx/resources/calls/actions';

/**
 * Speech recognition per call, from the line's language (the port's `language`: `multi` or a pinned code of the
 * spec's list). Engines and their options are those of telnyx 7.24.0 (`TranscriptionStartRequest`,
 * node_modules/telnyx/resources/calls/actions.d.ts):
 * - a pinned language: Google (`TranscriptionEngineGoogleConfig`) in that language, with interim results (a
 *   caller talking over the agent is heard before the sentence ends: barge-in). Google names Hebrew `iw`
 *   (`GoogleTranscriptionLanguage`); its `phone_call` model is kept for English, the default model elsewhere.
 * - `multi` (and calls that name no language): the Telnyx engine, Whisper large-v3-turbo, with
 *   `language: 'auto_detect'` (`TranscriptionEngineTelnyxConfig`, `TelnyxTranscriptionLanguage`), which covers
 *   every language of the spec's list. It has no interim results, so barge-in waits for the caller's sentence.
 * `call.transcription` never says which language was heard (`Transcription.Payload.transcription_data`).
 */
const GOOGLE_CODES: Readonly<Record<string, GoogleTranscriptionLanguage>> = {
  en: 'en',
  he: 'iw',
  es: 'es',
  ar: 'ar',
  ru: 'ru',
  fr: 'fr',
  de: 'de',
  pt: 'pt',
  it: 'it',
  pl: 'pl',
  nl: 'nl',
  tr: 'tr',
  ja: 'ja',
  zh: 'zh',
};

type Transcription = Pick<CallDialParams, 'transcription' | 'transcription_config'>;

export function telnyxTranscription(language: string | undefined): Transcription {
  const google = language ? GOOGLE_CODES[language] : undefined;
  if (!google) {
    return {
      transcription: true,
      transcription_config: {
        transcription_engine: 'Telnyx',
        transcription_engine_config: {
          transcription_engine: 'Telnyx',
          transcription_model: 'openai/whisper-large-v3-turbo',
          language: 'auto_detect',
        },
        transcription_tracks: 'inbound',
      },
    };
  }
  return {
    transcription: true,
    transcription_config: {
      transcription_engine: 'Google',
      transcription_engine_config: {
        transcription_engine: 'Google',
        language: google,
        interim_results: true,
        ...(google === 'en' ? { model: 'phone_call' as const } : {}),
      },
      transcription_tracks: 'inbound',
    },
  };
}
