/**
 * The voice catalog (src/domain/voices/catalog.ts) on Telnyx's `speak`: each slug is one Azure
 * neural voice Telnyx synthesises (`Azure.<voice>`). The `multi` voices are Azure's multilingual
 * ones, which read any supported language; the others are native voices of their language.
 * Telnyx's own default (`female`, its basic engine) when a line has no voice.
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

export const TELNYX_DEFAULT_VOICE = 'female';

export function telnyxVoice(slug: string | undefined): string {
  return (slug && TELNYX_VOICES[slug]) || TELNYX_DEFAULT_VOICE;
}
