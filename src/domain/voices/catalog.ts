/**
 * The voice catalog: slugs are what a line's `voice` stores; vendor voice ids never leave
 * the server. `multi` voices speak every supported language.
 */
export interface Voice {
  slug: string;
  name: string;
  gender: 'female' | 'male' | 'neutral';
  accent: string;
  description: string;
  languages: string[];
}

export const VOICES: readonly Voice[] = [
  { slug: 'aria', name: 'Aria', gender: 'female', accent: 'American', description: 'Warm, conversational', languages: ['multi'] },
  { slug: 'miles', name: 'Miles', gender: 'male', accent: 'American', description: 'Calm and clear', languages: ['multi'] },
  { slug: 'nova', name: 'Nova', gender: 'female', accent: 'British', description: 'Bright, upbeat', languages: ['multi'] },
  { slug: 'orion', name: 'Orion', gender: 'male', accent: 'British', description: 'Deep, measured', languages: ['multi'] },
  { slug: 'sage', name: 'Sage', gender: 'neutral', accent: 'American', description: 'Even, professional', languages: ['multi'] },
  { slug: 'hebrew-warm', name: 'Noa', gender: 'female', accent: 'Israeli', description: 'Warm Hebrew voice', languages: ['he'] },
  { slug: 'spanish-clara', name: 'Clara', gender: 'female', accent: 'Castilian', description: 'Friendly Spanish voice', languages: ['es'] },
  { slug: 'arabic-karim', name: 'Karim', gender: 'male', accent: 'Levantine', description: 'Steady Arabic voice', languages: ['ar'] },
  { slug: 'russian-irina', name: 'Irina', gender: 'female', accent: 'Moscow', description: 'Clear Russian voice', languages: ['ru'] },
  { slug: 'french-louis', name: 'Louis', gender: 'male', accent: 'Parisian', description: 'Relaxed French voice', languages: ['fr'] },
  {
    slug: 'german-lena',
    name: 'Lena',
    gender: 'female',
    accent: 'Standard German',
    description: 'Precise German voice',
    languages: ['de'],
  },
  { slug: 'japanese-yuki', name: 'Yuki', gender: 'female', accent: 'Tokyo', description: 'Polite Japanese voice', languages: ['ja'] },
  { slug: 'mandarin-wei', name: 'Wei', gender: 'male', accent: 'Beijing', description: 'Natural Mandarin voice', languages: ['zh'] },
];

export const VOICE_SLUG_PATTERN = '^[a-z0-9-]{1,40}$';

export function findVoice(slug: string): Voice | undefined {
  return VOICES.find((voice) => voice.slug === slug);
}
