import type VoiceResponse from 'twilio/lib/twiml/VoiceResponse';
import { findVoice } from '../../../domain/voices/catalog';

/**
 * Catalog voice slugs (src/domain/voices/catalog.ts) → the voices ConversationRelay speaks with, named
 * as Twilio names its hosted voices (the `twilio` package's `SayVoice`, so a name Twilio does not
 * host fails the type check: `<Say voice>`), with the language each speaks.
 *
 * ConversationRelay takes a `ttsProvider` (Google, Amazon, ElevenLabs) and one of that provider's
 * voices (twilio.com/docs/voice/conversationrelay/voice-configuration). Of Amazon Polly it speaks the
 * neural and generative voices, never the standard ones (a standard voice fails the session, error
 * 64101 "Invalid values … for tts settings"): every Polly voice here is `-Neural`. Russian has no
 * neural Polly voice (Polly's voice list: Tatyana and Maxim are standard only), so `russian-irina` is
 * Google's Chirp 3 HD `ru-RU-Chirp3-HD-Aoede` (female), as Hebrew is Google's (Polly has no Hebrew).
 * Unknown slugs get ConversationRelay's default voice.
 */
/** A voice Twilio hosts, as the `twilio` package types `<Say voice>`. */
type TwilioVoiceName = NonNullable<VoiceResponse.SayAttributes['voice']>;

export interface TwilioVoice {
  voice: TwilioVoiceName;
  language: string;
}

const TWILIO_VOICES: Readonly<Record<string, TwilioVoice>> = {
  aria: { voice: 'Polly.Joanna-Neural', language: 'en-US' },
  miles: { voice: 'Polly.Matthew-Neural', language: 'en-US' },
  nova: { voice: 'Polly.Amy-Neural', language: 'en-GB' },
  orion: { voice: 'Polly.Brian-Neural', language: 'en-GB' },
  sage: { voice: 'Polly.Joanna-Neural', language: 'en-US' },
  'hebrew-warm': { voice: 'Google.he-IL-Standard-A', language: 'he-IL' },
  'spanish-clara': { voice: 'Polly.Lucia-Neural', language: 'es-ES' },
  'arabic-karim': { voice: 'Polly.Zayd-Neural', language: 'ar-AE' },
  'russian-irina': { voice: 'Google.ru-RU-Chirp3-HD-Aoede', language: 'ru-RU' },
  'french-louis': { voice: 'Polly.Remi-Neural', language: 'fr-FR' },
  'german-lena': { voice: 'Polly.Vicki-Neural', language: 'de-DE' },
  'japanese-yuki': { voice: 'Polly.Kazuha-Neural', language: 'ja-JP' },
  'mandarin-wei': { voice: 'Polly.Zhiyu-Neural', language: 'cmn-CN' },
};

/** A catalog voice on Twilio; `multilingual` for the catalog's `multi` voices (they read any language the session speaks). */
export function twilioVoice(slug: string | undefined): (TwilioVoice & { multilingual: boolean }) | undefined {
  const mapped = slug ? TWILIO_VOICES[slug] : undefined;
  return mapped ? { ...mapped, multilingual: findVoice(slug!)?.languages.includes('multi') ?? false } : undefined;
}

/** The slugs mapped, for checks. */
export const TWILIO_VOICE_SLUGS = Object.keys(TWILIO_VOICES);

/** A Twilio voice as ConversationRelay names it: `ttsProvider` and `voice` (`Polly.Joanna-Neural` → Amazon, `Joanna-Neural`). */
export function relayVoiceName(voice: string): { ttsProvider: string; voice: string } {
  const [engine, name] = voice.split('.', 2);
  return { ttsProvider: engine === 'Polly' ? 'Amazon' : engine, voice: name };
}

/** The voice a session speaks a language with when it has none of its own: the catalog's native voice of that language, else any of it. */
export function twilioVoiceForLanguage(language: string): TwilioVoice | undefined {
  const voices = TWILIO_VOICE_SLUGS.map((slug) => twilioVoice(slug)!).filter((voice) => voice.language === language);
  return voices.find((voice) => !voice.multilingual) ?? voices[0];
}

/** Every language some catalog voice speaks: what a session may be asked to switch to. */
export const TWILIO_VOICE_LANGUAGES = [...new Set(Object.values(TWILIO_VOICES).map((voice) => voice.language))];
