import { relayVoiceName, twilioVoice, twilioVoiceForLanguage, TWILIO_VOICE_LANGUAGES, type TwilioVoice } from '../voices';

/**
 * The languages of a call's ConversationRelay session, from its line (`language`, `voice`): what Twilio
 * transcribes the caller in, what it speaks in first, and every language the session may switch to.
 *
 * - Transcription: a `multi` line is transcribed by Deepgram with `transcriptionLanguage="multi"`, which
 *   detects the caller's language and reports it in each `prompt`'s `lang` as a primary tag (`en`, not
 *   `en-US`) (Twilio changelog 2025-10-07, "ConversationRelay now supports a configuration for automatic
 *   language detection"); a pinned line is transcribed in its language.
 * - Speech: in the line voice's language; a `multi` catalog voice on a line pinned to another language
 *   speaks that language with the catalog's voice of it.
 * - A session switches its text-to-speech only to a language its TwiML declared ("Add a language that
 *   your TwiML didn't declare: declare the language and switch to it in a single message",
 *   twilio.com/docs/voice/conversationrelay/dynamic-configuration): every language a catalog voice speaks
 *   is declared as a `<Language>` with its voice, so a speech in any catalog voice can switch to it with a
 *   plain `language` message (./relaySession.ts).
 */

/** The spec's line languages → the BCP-47 tags ConversationRelay takes (the catalog voices' tags where they speak it). */
const LINE_LANGUAGE_TAGS: Readonly<Record<string, string>> = {
  en: 'en-US',
  he: 'he-IL',
  es: 'es-ES',
  ar: 'ar-AE',
  ru: 'ru-RU',
  fr: 'fr-FR',
  de: 'de-DE',
  pt: 'pt-BR',
  it: 'it-IT',
  pl: 'pl-PL',
  nl: 'nl-NL',
  tr: 'tr-TR',
  ja: 'ja-JP',
  zh: 'cmn-CN',
};

const DEFAULT_TTS_LANGUAGE = 'en-US';

export interface RelayVoice {
  ttsProvider: string;
  voice: string;
}

export interface RelaySessionLanguages {
  /** The language the session speaks in first (its `ttsLanguage`, and the `language` custom parameter). */
  ttsLanguage: string;
  /** Its voice, when Switchboard has one for it (else ConversationRelay's default). */
  voice?: RelayVoice;
  transcriptionLanguage: string;
  transcriptionProvider?: string;
  /** The `<Language>` children: every language the session may speak, with its voice. */
  languages: Array<{ code: string } & Partial<RelayVoice>>;
}

const primary = (tag: string) => tag.split('-')[0].toLowerCase();
const nameOf = (voice: TwilioVoice | undefined): RelayVoice | undefined => (voice ? relayVoiceName(voice.voice) : undefined);

export function relaySessionLanguages(line: { voiceSlug?: string; language?: string }): RelaySessionLanguages {
  const lineVoice = twilioVoice(line.voiceSlug);
  const pinned = line.language && line.language !== 'multi' ? LINE_LANGUAGE_TAGS[line.language] : undefined;
  const speaksLineVoice = lineVoice && (!lineVoice.multilingual || !pinned || primary(pinned) === primary(lineVoice.language));
  const ttsLanguage = speaksLineVoice ? lineVoice.language : (pinned ?? lineVoice?.language ?? DEFAULT_TTS_LANGUAGE);
  const voiceOf = (language: string) =>
    nameOf(speaksLineVoice && lineVoice.language === language ? lineVoice : twilioVoiceForLanguage(language));
  const codes = [...new Set([ttsLanguage, ...(pinned ? [pinned] : []), ...TWILIO_VOICE_LANGUAGES])];
  return {
    ttsLanguage,
    voice: voiceOf(ttsLanguage),
    ...(pinned ? { transcriptionLanguage: pinned } : { transcriptionLanguage: 'multi', transcriptionProvider: 'Deepgram' }),
    languages: codes.map((code) => ({ code, ...voiceOf(code) })),
  };
}
