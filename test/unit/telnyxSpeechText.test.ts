import { estimatePlayed, splitSpeech, TELNYX_SPEAK_MAX_CHARS } from '../../src/adapters/carrier/callbacks/telnyx/speechText';

/** Telnyx `speak` takes at most 3,000 characters (telnyx 7.24.0 `ActionSpeakParams.payload`); the API takes 5,000. */
describe('Telnyx speech text', () => {
  const sentence = (i: number) => `Sentence number ${i} tells the caller something useful about the order.`;
  const words = (text: string) => text.split(/\s+/).filter(Boolean);

  it('cuts a 5,000-character speech at sentence boundaries into commands of at most 3,000 characters that read as the text', () => {
    let text = '';
    for (let i = 0; text.length < 5_000; i += 1) text += `${sentence(i)} `;
    text = text.slice(0, 5_000).replace(/\S*$/, '').trim();
    const chunks = splitSpeech(text);
    expect(chunks.length).toBe(2);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(TELNYX_SPEAK_MAX_CHARS);
    expect(chunks[0]).toMatch(/\.$/);
    expect(chunks.flatMap(words)).toEqual(words(text));
  });

  it('cuts a sentence longer than the limit at word boundaries, and a word longer than it at the limit', () => {
    const run = Array.from({ length: 700 }, (_, i) => `word${i}`).join(' ');
    const chunks = splitSpeech(run);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(TELNYX_SPEAK_MAX_CHARS);
    expect(chunks.flatMap(words)).toEqual(words(run));
    const giant = 'x'.repeat(4_000);
    expect(splitSpeech(giant).map((c) => c.length)).toEqual([3_000, 1_000]);
    expect(splitSpeech('  Short.  ')).toEqual(['Short.']);
    expect(splitSpeech('   ')).toEqual([]);
  });

  it('estimates what was heard from the playing time, whole words only, erring low', () => {
    const text = 'One two three four five six seven eight nine ten';
    expect(estimatePlayed(text, 0)).toBe('');
    // 1 s at 12 characters a second: "One two three" is 13 characters, so "One two".
    expect(estimatePlayed(text, 1_000)).toBe('One two');
    expect(estimatePlayed(text, 60_000)).toBe(text);
  });
});
