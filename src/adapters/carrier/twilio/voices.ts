/**
 * Catalog voice slugs (src/domain/voices/catalog.ts) → Twilio voices (Amazon Polly neural
 * voices Twilio hosts), with the language each speaks. Unknown slugs get Twilio's default voice.
 */
const TWILIO_VOICES: Record<string, { voice: string; language: string }> = {
  aria: { voice: 'Polly.Joanna-Neural', language: 'en-US' },
  miles: { voice: 'Polly.Matthew-Neural', language: 'en-US' },
  nova: { voice: 'Polly.Amy-Neural', language: 'en-GB' },
  orion: { voice: 'Polly.Brian-Neural', language: 'en-GB' },
  sage: { voice: 'Polly.Joanna-Neural', language: 'en-US' },
  'hebrew-warm': { voice: 'Google.he-IL-Standard-A', language: 'he-IL' },
  'spanish-clara': { voice: 'Polly.Lucia-Neural', language: 'es-ES' },
  'arabic-karim': { voice: 'Polly.Zayd-Neural', language: 'ar-AE' },
  'russian-irina': { voice: 'Polly.Tatyana', language: 'ru-RU' },
  'french-louis': { voice: 'Polly.Remi-Neural', language: 'fr-FR' },
  'german-lena': { voice: 'Polly.Vicki-Neural', language: 'de-DE' },
  'japanese-yuki': { voice: 'Polly.Kazuha-Neural', language: 'ja-JP' },
  'mandarin-wei': { voice: 'Polly.Zhiyu-Neural', language: 'cmn-CN' },
};

export function twilioVoice(slug: string | undefined): { voice: string; language: string } | undefined {
  return slug ? TWILIO_VOICES[slug] : undefined;
}

/** The same voice as ConversationRelay names it: `ttsProvider` and `voice` (`Polly.Joanna-Neural` → Amazon, `Joanna-Neural`). */
export function twilioRelayVoice(slug: string | undefined): { provider: string; voice: string; language: string } | undefined {
  const mapped = twilioVoice(slug);
  if (!mapped) return undefined;
  const [engine, name] = mapped.voice.split('.', 2);
  return { provider: engine === 'Polly' ? 'Amazon' : engine, voice: name, language: mapped.language };
}
