import fc from 'fast-check';
import { createSpeechChunker, MAX_CHUNK_CHARS, speechChunks } from '../../src/domain/calls/speechChunks';

/** Feeds `deltas` one by one and returns every chunk, the ones `push` returned and then `end`'s. */
function chunkStream(deltas: string[]): string[] {
  const chunker = createSpeechChunker();
  const out: string[] = [];
  for (const delta of deltas) out.push(...chunker.push(delta));
  out.push(...chunker.end());
  return out;
}

/** Cuts `text` into deltas at the given positions (sorted, deduplicated). */
function splitAt(text: string, positions: number[]): string[] {
  const cuts = [...new Set(positions.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const deltas: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    deltas.push(text.slice(from, cut));
    from = cut;
  }
  deltas.push(text.slice(from));
  return deltas;
}

describe('speech chunks', () => {
  it('emits a sentence as soon as whitespace follows its end', () => {
    const chunker = createSpeechChunker();
    expect(chunker.push('Hello there')).toEqual([]);
    expect(chunker.push('. How')).toEqual(['Hello there.']);
    expect(chunker.push(' are you?')).toEqual([]);
    expect(chunker.push(' Fine')).toEqual(['How are you?']);
    expect(chunker.push('!')).toEqual([]);
    expect(chunker.end()).toEqual(['Fine!']);
  });

  it('ends sentences at . ! ? … and the Arabic question mark', () => {
    expect(speechChunks('One. Two! Three? Four… Five؟ Six')).toEqual(['One.', 'Two!', 'Three?', 'Four…', 'Five؟', 'Six']);
    expect(speechChunks('هل أنت بخير؟ نعم.')).toEqual(['هل أنت بخير؟', 'نعم.']);
  });

  it('ends CJK sentences at 。！？ without whitespace after them', () => {
    expect(speechChunks('你好。今天天气很好！你呢？我很好')).toEqual(['你好。', '今天天气很好！', '你呢？', '我很好']);
    expect(speechChunks('こんにちは。元気ですか？')).toEqual(['こんにちは。', '元気ですか？']);
  });

  it('keeps runs of punctuation and closing quotes with their sentence', () => {
    expect(speechChunks('Really?! Yes... "Done." (Quite!) Next')).toEqual(['Really?!', 'Yes...', '"Done."', '(Quite!)', 'Next']);
    expect(speechChunks('他说：「好。」然后走了。')).toEqual(['他说：「好。」', '然后走了。']);
  });

  it('waits for the next delta before deciding on punctuation at the end of a delta', () => {
    const chunker = createSpeechChunker();
    expect(chunker.push('It costs 3.')).toEqual([]);
    expect(chunker.push('50 dollars.')).toEqual([]);
    expect(chunker.push('"')).toEqual([]);
    expect(chunker.push(' Okay')).toEqual(['It costs 3.50 dollars."']);
    expect(chunker.push('。')).toEqual([]);
    expect(chunker.push('」')).toEqual([]);
    expect(chunker.push('x')).toEqual(['Okay。」']);
    expect(chunker.end()).toEqual(['x']);
  });

  it('does not end a sentence inside numbers, words or after common abbreviations', () => {
    expect(speechChunks('Version 2.5 is out.')).toEqual(['Version 2.5 is out.']);
    expect(speechChunks('See example.com for details. Thanks')).toEqual(['See example.com for details.', 'Thanks']);
    expect(speechChunks('Dr. Smith and Mrs. Jones meet at St. Mary, e.g. on Monday. Bye')).toEqual([
      'Dr. Smith and Mrs. Jones meet at St. Mary, e.g. on Monday.',
      'Bye',
    ]);
  });

  it('emits the remainder at the end, trimmed, and never empty or blank chunks', () => {
    expect(speechChunks('  Hello.   ')).toEqual(['Hello.']);
    expect(speechChunks('')).toEqual([]);
    expect(speechChunks('   \n ')).toEqual([]);
    expect(speechChunks('... ?! Hi')).toEqual(['...', '?!', 'Hi']);
    const chunker = createSpeechChunker();
    expect(chunker.push('')).toEqual([]);
    expect(chunker.push('  ')).toEqual([]);
    expect(chunker.end()).toEqual([]);
  });

  it('starts afresh after end()', () => {
    const chunker = createSpeechChunker();
    expect(chunker.push('First reply')).toEqual([]);
    expect(chunker.end()).toEqual(['First reply']);
    expect(chunker.push('Second. ')).toEqual(['Second.']);
    expect(chunker.end()).toEqual([]);
  });

  it('flushes a long sentence without punctuation at a word boundary within the limit', () => {
    const words = Array.from({ length: 60 }, (_, i) => `word${i}`);
    const chunker = createSpeechChunker();
    const out: string[] = [];
    for (const word of words) out.push(...chunker.push(`${word} `));
    expect(out.length).toBeGreaterThan(0);
    for (const chunk of out) {
      expect(chunk.length).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
      expect(chunk.length).toBeGreaterThan(MAX_CHUNK_CHARS - 10);
      expect(chunk).toMatch(/^word\d+( word\d+)*$/); // whole words only
    }
    out.push(...chunker.end());
    expect(out.join(' ')).toBe(words.join(' '));
  });

  it('cuts a long text without any whitespace at the limit', () => {
    const text = '好'.repeat(450);
    expect(speechChunks(text)).toEqual(['好'.repeat(200), '好'.repeat(200), '好'.repeat(50)]);
  });

  it('does not split a surrogate pair when cutting at the limit', () => {
    const text = `${'a'.repeat(199)}😀${'b'.repeat(10)}`;
    const chunks = speechChunks(text);
    expect(chunks).toEqual([`${'a'.repeat(199)}😀`, 'b'.repeat(10)]);
  });

  it('honours a custom limit', () => {
    const chunker = createSpeechChunker({ maxChunkChars: 10 });
    expect(chunker.push('one two three four')).toEqual(['one two']); // 'three four' is not over 10
    expect(chunker.push(' five')).toEqual(['three four']);
    expect(chunker.end()).toEqual(['five']);
  });

  it('gives the same chunks however the reply is split into deltas, losing no text', () => {
    const alphabet = fc.constantFrom(
      'a',
      'b',
      'Z',
      '1',
      ' ',
      ' ',
      '\n',
      '.',
      '!',
      '?',
      '…',
      '؟',
      '。',
      '！',
      '？',
      '"',
      ')',
      '」',
      '好',
      'Dr',
      'e.g',
      '😀',
    );
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 400 }).map((parts) => parts.join('')),
        fc.array(fc.nat(), { maxLength: 30 }),
        (text, positions) => {
          const whole = speechChunks(text);
          const streamed = chunkStream(splitAt(text, positions));
          expect(streamed).toEqual(whole);
          for (const chunk of whole) {
            expect(chunk).toBe(chunk.trim());
            expect(chunk).not.toBe('');
            expect(chunk.length).toBeLessThanOrEqual(MAX_CHUNK_CHARS + 1);
          }
          expect(whole.join('').replace(/\s/gu, '')).toBe(text.replace(/\s/gu, ''));
        },
      ),
      { numRuns: 500 },
    );
  });
});
