import { fillVariables, placeholdersIn } from '../../src/domain/calls/personalization';

describe('per-call variables (src/domain/calls/personalization.ts)', () => {
  const texts = {
    system_prompt: 'You call {{ first_name }} about order {{order_id}}. Be brief with {{first_name}}.',
    begin_message: 'Hello {{first_name}}!',
  };

  it('finds each placeholder once, in order, spaces inside the braces allowed', () => {
    expect(placeholdersIn(texts.system_prompt)).toEqual(['first_name', 'order_id']);
    expect(placeholdersIn('{{ 1bad }} {single} {{ok_2}}')).toEqual(['ok_2']);
    expect(placeholdersIn(null)).toEqual([]);
  });

  it('fills every placeholder of both texts', () => {
    expect(fillVariables(texts, { first_name: 'Ada', order_id: 'A-17' })).toEqual({
      ok: true,
      texts: { system_prompt: 'You call Ada about order A-17. Be brief with Ada.', begin_message: 'Hello Ada!' },
    });
  });

  it('inserts values literally: no replacement patterns, no second pass', () => {
    const filled = fillVariables({ system_prompt: 'Say {{a}}', begin_message: null }, { a: "$& {{a}} $'" });
    expect(filled).toEqual({ ok: true, texts: { system_prompt: "Say $& {{a}} $'", begin_message: null } });
  });

  it('uses the texts as written when the call has no variables', () => {
    expect(fillVariables(texts, undefined)).toEqual({ ok: true, texts });
  });

  it('refuses a placeholder left without a value, naming it', () => {
    expect(fillVariables(texts, { first_name: 'Ada' })).toEqual({
      ok: false,
      field: 'variables.order_id',
      message: "Used by the call's system_prompt; give it a value",
    });
    expect(fillVariables({ system_prompt: null, begin_message: 'Hi {{name}}' }, {})).toMatchObject({ field: 'variables.name' });
  });

  it('refuses a variable no text uses (a typo would otherwise go unnoticed)', () => {
    expect(fillVariables(texts, { first_name: 'Ada', order_id: '1', frist_name: 'x' })).toEqual({
      ok: false,
      field: 'variables.frist_name',
      message: 'Not used by the call’s system_prompt or begin_message',
    });
    expect(fillVariables({ system_prompt: null, begin_message: null }, { a: '1' })).toMatchObject({ ok: false, field: 'variables.a' });
  });

  it('does not take inherited object keys for values', () => {
    expect(fillVariables({ system_prompt: '{{toString}}', begin_message: null }, {})).toMatchObject({
      ok: false,
      field: 'variables.toString',
    });
  });
});
