/**
 * The voice catalog (src/domain/voices/catalog.ts) on Telnyx's `speak`: each slug is one Azure neural voice
 * Telnyx synthesises, named as Telnyx documents it: "Azure: Use `Azure.<VoiceId>` (e.g., `Azure.en-CA-ClaraNeural`,
 * `Azure.en-US-BrianMultilingualNeural`)" (telnyx 7.24.0 `ActionSpeakParams.voice`). Each `<VoiceId>` is an Azure
 * short name `<locale>-<Name>Neural` of Azure's voice gallery (checked against Azure's published voice list; the
 * two en-GB multilingual ones are Azure-only). The `multi` voices are Azure's multilingual ones, which read any
 * supported language; the others are native voices of their catalog language.
 */
export const TELNYX_VOICES: Readonly<Record<string, string>> = {
  aria: 'Azure.en-US-AvaMultilingualNeural',
  miles: 'Azure.en-US-AndrewMultilingualNeural',
  nova: 'Azure.en-GB-AdaMultilingualNeural',
  orion: 'Azure.en-GB-OllieMultilingualNeural',
  sage: 'Azure.en-US-BrianMultilingualNeural',
  'hebrew-warm': 'Azure.he-IL-HilaNeural',
  'spanish-clara': 'Azure.es-ES-ElviraNeural',
  'arabic-karim': 'Azure.ar-SY-LaithNeural',
  'russian-irina': 'Azure.ru-RU-SvetlanaNeural',
  'french-louis': 'Azure.fr-FR-HenriNeural',
  'german-lena': 'Azure.de-DE-KatjaNeural',
  'japanese-yuki': 'Azure.ja-JP-NanamiNeural',
  'mandarin-wei': 'Azure.zh-CN-YunxiNeural',
};

/**
 * A line without a voice speaks in its language: the catalog's native voice of a pinned language, else a
 * multilingual one (Telnyx's own `female`/`male` are its basic engine, which speaks en-US only: "When using
 * `basic`, only the `en-US` language and payload type `text` are allowed", `ActionSpeakParams.service_level`).
 */
const NATIVE_DEFAULTS: Readonly<Record<string, string>> = {
  he: 'hebrew-warm',
  es: 'spanish-clara',
  ar: 'arabic-karim',
  ru: 'russian-irina',
  fr: 'french-louis',
  de: 'german-lena',
  ja: 'japanese-yuki',
  zh: 'mandarin-wei',
};

export const TELNYX_DEFAULT_VOICE = TELNYX_VOICES.aria;

/** The Telnyx voice of a slug, or the line's language's default (`multi`, unknown or absent: multilingual). */
export function telnyxVoice(slug: string | undefined, language?: string): string {
  if (slug && TELNYX_VOICES[slug]) return TELNYX_VOICES[slug];
  const native = language ? NATIVE_DEFAULTS[language] : undefined;
  return native ? TELNYX_VOICES[native] : TELNYX_DEFAULT_VOICE;
}
