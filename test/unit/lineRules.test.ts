import { isLanguagePinningRefused, lineFieldProblems, normalizeMode, normalizeVoice, LANGUAGES } from '../../src/domain/lines/rules';

describe('line rules', () => {
  it('maps the legacy mode text to webhook and keeps the others', () => {
    expect(normalizeMode('text')).toBe('webhook');
    for (const mode of ['hosted', 'webhook', 'audio', 'agent']) expect(normalizeMode(mode)).toBe(mode);
  });

  it('has the 15 languages of the spec, multi first (the default)', () => {
    expect(LANGUAGES).toEqual(['multi', 'en', 'he', 'es', 'ar', 'ru', 'fr', 'de', 'pt', 'it', 'pl', 'nl', 'tr', 'ja', 'zh']);
  });

  it('refuses pinning a language only on hosted lines, and only to something other than multi', () => {
    expect(isLanguagePinningRefused('hosted', 'en')).toBe(true);
    expect(isLanguagePinningRefused('hosted', 'multi')).toBe(true);
    expect(isLanguagePinningRefused('hosted', undefined)).toBe(false);
    expect(isLanguagePinningRefused('webhook', 'he')).toBe(false);
    expect(isLanguagePinningRefused('audio', 'ja')).toBe(false);
  });

  it('requires the field each mode works with', () => {
    expect(lineFieldProblems({ mode: 'hosted' })).toEqual([{ field: 'system_prompt', message: 'Required when mode is hosted' }]);
    expect(lineFieldProblems({ mode: 'hosted', system_prompt: '   ' })).toHaveLength(1);
    expect(lineFieldProblems({ mode: 'webhook', webhook_url: 'https://x.example.test/h' })).toEqual([]);
    expect(lineFieldProblems({ mode: 'audio', audio_handler_url: 'wss://x.example.test/a' })).toEqual([]);
  });

  it('an agent line needs none of them, and refuses the fields that would hand its calls to another driver', () => {
    expect(lineFieldProblems({ mode: 'agent' })).toEqual([]);
    expect(lineFieldProblems({ mode: 'agent', webhook_url: 'https://x.example.test/h', system_prompt: null, tools: null })).toEqual([]);
    expect(
      lineFieldProblems({ mode: 'agent', system_prompt: 'Be nice', audio_handler_url: 'wss://x.example.test/a', tools: [] }).map(
        (p) => p.field,
      ),
    ).toEqual(['system_prompt', 'audio_handler_url', 'tools']);
    expect(lineFieldProblems({ mode: 'agent', system_prompt: '' })[0].message).toMatch(/Not used on an agent line/);
  });

  it('checks URL schemes per field', () => {
    expect(lineFieldProblems({ mode: 'webhook', webhook_url: 'ws://x.example.test' }).map((p) => p.field)).toEqual(['webhook_url']);
    expect(lineFieldProblems({ mode: 'audio', audio_handler_url: 'http://x.example.test' }).map((p) => p.field)).toEqual([
      'audio_handler_url',
    ]);
    expect(
      lineFieldProblems({ mode: 'webhook', webhook_url: 'https://x.example.test', status_callback_url: 'mailto:a@b.c' }).map(
        (p) => p.field,
      ),
    ).toEqual(['status_callback_url']);
  });

  it('accepts only catalog voice slugs', () => {
    const base = { mode: 'webhook' as const, webhook_url: 'https://x.example.test' };
    expect(lineFieldProblems({ ...base, voice: 'aria' })).toEqual([]);
    expect(lineFieldProblems({ ...base, voice: 'Aria' })[0].field).toBe('voice');
    expect(lineFieldProblems({ ...base, voice: 'nobody' })[0].message).toMatch(/Unknown voice/);
    expect(normalizeVoice('  hebrew-warm ')).toBe('hebrew-warm');
    expect(normalizeVoice('  ')).toBeNull();
    expect(normalizeVoice(undefined)).toBeUndefined();
  });
});
