import { CUSTOM_RULE_BOUNDS_MS, luhnValid, markerOf, redactEntry, redactText, runCustomRule } from '../../src/domain/recordings/redaction';
import {
  customPatternProblem,
  redactionProblems,
  redactionSettingsOf,
  REDACTION_KINDS,
  type RedactionSettings,
} from '../../src/domain/recordings/redactionSettings';
import { callRedactionOf, redactedEventPayload } from '../../src/domain/recordings/redactTranscript';

const all: Pick<RedactionSettings, 'kinds' | 'custom'> = { kinds: [...REDACTION_KINDS], custom: [] };
const only = (...kinds: RedactionSettings['kinds']) => ({ kinds, custom: [] });

describe('redactText', () => {
  it('redacts a Luhn-valid card number in groups and keeps a digit run that fails Luhn', () => {
    const { text, redactions } = redactText('card 4242 4242 4242 4242, not 4242 4242 4242 4241', all);
    expect(text).toBe('card [REDACTED:card_number], not 4242 4242 4242 4241');
    expect(redactions).toEqual([{ kind: 'card_number', start: 5, length: markerOf('card_number').length }]);
  });

  it('finds card numbers written with dashes, as one run, or as single digits, of 13 to 19 digits', () => {
    expect(redactText('5555-5555-5555-4444', all).text).toBe('[REDACTED:card_number]');
    expect(redactText('378282246310005', all).text).toBe('[REDACTED:card_number]'); // Amex, 15 digits
    expect(redactText('4 2 4 2 4 2 4 2 4 2 4 2 4 2 4 2 thanks', all).text).toBe('[REDACTED:card_number] thanks');
    // 12 digits pass Luhn but are too short to be a card number.
    expect(luhnValid('424242424242')).toBe(true);
    expect(redactText('424242424242', only('card_number')).text).toBe('424242424242');
  });

  it('finds a card number followed by more digits (its expiry date) by whole groups', () => {
    expect(redactText('4242 4242 4242 4242 12 26', all).text).toBe('[REDACTED:card_number] 12 26');
  });

  it('redacts US SSNs and leaves the numbers the SSA never issues', () => {
    expect(redactText('mine is 123-45-6789.', all).text).toBe('mine is [REDACTED:us_ssn].');
    expect(redactText('123 45 6789', only('us_ssn')).text).toBe('[REDACTED:us_ssn]');
    for (const invalid of ['000-12-3456', '666-12-3456', '900-12-3456', '123-00-4567', '123-45-0000', '123-45 6789'])
      expect(redactText(invalid, only('us_ssn')).text).toBe(invalid);
  });

  it('redacts email addresses, unicode ones included, and phone numbers of the default country or international', () => {
    expect(redactText('write to jo.ann+x@example.co.uk.', all).text).toBe('write to [REDACTED:email].');
    expect(redactText('écrivez à zoë@exemple.fr', all).text).toBe('écrivez à [REDACTED:email]');
    expect(redactText('call (415) 555-2671 or +44 20 7946 0958', all).text).toBe('call [REDACTED:phone_number] or [REDACTED:phone_number]');
    // A national number of another country is read as the call's country.
    expect(redactText('ring 020 7946 0958', all, { country: 'GB' }).text).toBe('ring [REDACTED:phone_number]');
  });

  it('takes the longest of overlapping finds: an email holding a phone number, a card number holding one', () => {
    expect(redactText('jo4155552671@example.com', all).text).toBe('[REDACTED:email]');
    // A phone number's digits opening a Luhn-valid card number: the card is redacted whole, nothing of it left.
    const card = '415 555 2671 000 003';
    expect(luhnValid(card.replace(/ /g, ''))).toBe(true);
    expect(redactText(`call 415 555 2671, card ${card}`, all)).toEqual({
      text: 'call [REDACTED:phone_number], card [REDACTED:card_number]',
      redactions: [
        { kind: 'phone_number', start: 5, length: 23 },
        { kind: 'card_number', start: 35, length: 22 },
      ],
    });
  });

  it('counts places in code points, so text with astral characters points at its markers', () => {
    const { text, redactions } = redactText('😀 é 123-45-6789 😀 jo@example.com', all);
    expect(text).toBe('😀 é [REDACTED:us_ssn] 😀 [REDACTED:email]');
    const chars = Array.from(text);
    for (const redaction of redactions)
      expect(chars.slice(redaction.start, redaction.start + redaction.length).join('')).toBe(markerOf(redaction.kind));
  });

  it('applies custom rules, after the built-in kinds on a tie', () => {
    const custom = { kinds: [], custom: [{ name: 'order_id', pattern: 'ORD-\\d{6}' }] };
    expect(redactText('order ORD-123456 shipped', custom)).toEqual({
      text: 'order [REDACTED:order_id] shipped',
      redactions: [{ kind: 'order_id', start: 6, length: 19 }],
    });
  });

  it('bounds a custom rule’s time: one that backtracks for ever redacts the whole text, failing closed, and the next text is redacted as usual', () => {
    // Exponential on a run of `a` without a `b`, yet not refused by the syntactic rule (no nested quantifier).
    const slow = { kinds: [], custom: [{ name: 'slow', pattern: '(a|a)*b' }] };
    expect(customPatternProblem('(a|a)*b')).toBeUndefined();
    const started = Date.now();
    expect(redactText(`card 4242 4242 4242 4242 ${'a'.repeat(40)}`, { ...slow, kinds: ['card_number'] })).toEqual({
      text: '[REDACTED:slow]',
      redactions: [{ kind: 'slow', start: 0, length: 15 }],
    });
    // Unbounded, 2^40 steps would never end; bounded, it ends after the first run and its confirmation.
    expect(Date.now() - started).toBeLessThan(CUSTOM_RULE_BOUNDS_MS.reduce((sum, bound) => sum + bound, 0) * 10);
    expect(runCustomRule('a'.repeat(40), '(a|a)*b')).toEqual({ matches: 'timed_out', runs: CUSTOM_RULE_BOUNDS_MS.length });
    expect(redactText('aab and c', slow).text).toBe('[REDACTED:slow] and c');
  });

  it('runs a rule that ran out of time once more, with a longer bound, before failing closed: a stall of the process does not wipe the entry', () => {
    // A run cut short (here by a 1 ms first bound; in production by a garbage collection or a busy machine, as
    // Node's bound is wall-clock time) is not taken as proof that the rule is slow: 20 `a`s take `(a|a)*b` tens
    // of milliseconds, past the first bound and well within the second.
    const text = `${'a'.repeat(20)} then aab`;
    expect(runCustomRule(text, '(a|a)*b', [1, 60_000])).toEqual({ matches: [[26, 3]], runs: 2 });
    const slow = { kinds: [], custom: [{ name: 'slow', pattern: '(a|a)*b' }] };
    expect(redactText(text, slow, { ruleBoundsMs: [1, 60_000] })).toEqual({
      text: `${'a'.repeat(20)} then [REDACTED:slow]`,
      redactions: [{ kind: 'slow', start: 26, length: 15 }],
    });
    // With the one short bound, as before this rule, the same text fails closed.
    expect(redactText(text, slow, { ruleBoundsMs: [1] }).text).toBe('[REDACTED:slow]');
    // A rule that finishes in time runs once.
    expect(runCustomRule('order ORD-123456', 'ORD-\\d{6}')).toEqual({ matches: [[6, 10]], runs: 1 });
  });

  it('keeps what was redacted before and adds what a rule finds now, its markers moved', () => {
    const first = redactEntry({ text: 'card 4242424242424242, mail jo@example.com' }, only('card_number'));
    expect(first.redactions).toEqual([{ kind: 'card_number', start: 5, length: 22 }]);
    const again = redactEntry(first, all);
    expect(again.text).toBe('card [REDACTED:card_number], mail [REDACTED:email]');
    expect(again.redactions).toEqual([
      { kind: 'card_number', start: 5, length: 22 },
      { kind: 'email', start: 34, length: 16 },
    ]);
    expect(redactEntry(again, all)).toEqual(again);
  });

  it('changes nothing when no kind is chosen, and an entry with nothing found carries no redactions', () => {
    expect(redactText('4242 4242 4242 4242', { kinds: [], custom: [] }).text).toBe('4242 4242 4242 4242');
    expect(redactEntry({ text: 'hello', role: 'user' }, all)).toEqual({ text: 'hello', role: 'user' });
  });
});

describe('redaction settings', () => {
  it('defaults to nothing redacted, and reads stored settings with their defaults', () => {
    expect(redactionSettingsOf(undefined)).toEqual({ kinds: [], custom: [], webhooks: false });
    expect(redactionSettingsOf({ kinds: ['email', 'nope'], webhooks: true })).toEqual({ kinds: ['email'], custom: [], webhooks: true });
  });

  it('refuses custom patterns that do not compile, backtrack catastrophically, refer back or match nothing', () => {
    expect(customPatternProblem('ORD-\\d{6}')).toBeUndefined();
    expect(customPatternProblem('(?:foo|bar)+\\d')).toBeUndefined();
    expect(customPatternProblem('\\(a+\\)+')).toBeUndefined();
    expect(customPatternProblem('[(a+)]+')).toBeUndefined();
    expect(customPatternProblem('(a{2})+')).toBeUndefined();
    expect(customPatternProblem('(')).toMatch(/valid regular expression/);
    expect(customPatternProblem('[z-a]')).toMatch(/valid regular expression/);
    for (const nested of ['(a+)+', '(\\d*)*', '(?:x+y?){2,}', '((a+)b)*', '(a{2,})+'])
      expect(customPatternProblem(nested)).toMatch(/unbounded quantifier/);
    expect(customPatternProblem('(a)\\1')).toMatch(/backreferences/);
    expect(customPatternProblem('a*')).toMatch(/empty text/);
    expect(customPatternProblem('a'.repeat(201))).toMatch(/at most 200/);
  });

  it('names the field of each refused rule, and refuses a built-in kind’s name or one used twice', () => {
    expect(
      redactionProblems({
        custom: [
          { name: 'ok', pattern: 'x' },
          { name: 'bad', pattern: '(a+)+' },
          { name: 'email', pattern: 'y' },
          { name: 'ok', pattern: 'z' },
        ],
      }),
    ).toEqual([
      { field: 'recordings.redaction.custom.1.pattern', message: expect.stringMatching(/unbounded/) },
      { field: 'recordings.redaction.custom.2.name', message: 'Must not be the name of a built-in kind' },
      { field: 'recordings.redaction.custom.3.name', message: 'Must be unique among the custom rules' },
    ]);
  });
});

describe('redacted event payloads', () => {
  const redaction = callRedactionOf({ kinds: ['email'], custom: [], webhooks: true });

  it('redacts message text and context, and interrupted text; leaves other events', () => {
    expect(
      redactedEventPayload(redaction, 'message', {
        call_id: 'c',
        text: 'jo@example.com',
        context: [{ role: 'user', text: 'jo@example.com', timestamp: 1 }],
      }),
    ).toEqual({ call_id: 'c', text: '[REDACTED:email]', context: [{ role: 'user', text: '[REDACTED:email]', timestamp: 1 }] });
    expect(redactedEventPayload(redaction, 'interrupted', { partial_response_text: 'at jo@example.com' })).toEqual({
      partial_response_text: 'at [REDACTED:email]',
    });
    const ended = { call_id: 'c', note: 'jo@example.com' };
    expect(redactedEventPayload(redaction, 'call_ended', ended)).toBe(ended);
  });

  it('redacts every string of a tool_called event’s tool call but its id and name', () => {
    const toolCall = {
      id: 'jo@example.com',
      name: 'email_jo@example.com',
      arguments: { to: ['jo@example.com'], n: 2 },
      result: 'sent to jo@example.com',
      error: null,
    };
    expect(redactedEventPayload(redaction, 'tool_called', { tool_call: toolCall, duration_ms: 5 })).toEqual({
      tool_call: { ...toolCall, arguments: { to: ['[REDACTED:email]'], n: 2 }, result: 'sent to [REDACTED:email]' },
      duration_ms: 5,
    });
  });
});

describe('redactEntry of a tool call', () => {
  const entry = {
    role: 'assistant',
    kind: 'tool',
    text: 'take_payment',
    timestamp: 1,
    tool: {
      id: 'call_1',
      name: 'take_payment',
      arguments: { card: '4242 4242 4242 4242', note: 'for jo@example.com', amount: 12 },
      result: '{"receipt":"sent to jo@example.com"}',
      error: null,
    },
  };

  it('redacts the strings of its arguments and result, recording where each marker is', () => {
    const redacted = redactEntry(entry, all);
    expect(redacted.text).toBe('take_payment');
    expect(redacted.tool).toEqual({
      ...entry.tool,
      arguments: { card: '[REDACTED:card_number]', note: 'for [REDACTED:email]', amount: 12 },
      result: '{"receipt":"sent to [REDACTED:email]"}',
    });
    expect(redacted.redactions).toEqual([
      { kind: 'card_number', start: 0, length: markerOf('card_number').length, field: 'tool.arguments.card' },
      { kind: 'email', start: 4, length: markerOf('email').length, field: 'tool.arguments.note' },
      { kind: 'email', start: 20, length: markerOf('email').length, field: 'tool.result' },
    ]);
    expect(JSON.stringify(redacted)).not.toMatch(/4242|jo@example/);
  });

  it('is the same redacted again, and leaves an entry without a tool call without one', () => {
    const once = redactEntry(entry, all);
    expect(redactEntry(once, all)).toEqual(once);
    expect(redactEntry({ text: 'jo@example.com' }, all)).not.toHaveProperty('tool');
  });
});
