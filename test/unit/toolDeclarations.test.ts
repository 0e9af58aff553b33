import { argumentsProblem, offeredFunction, parseArguments, toolProblems, type FunctionTool } from '../../src/domain/tools/declarations';
import { TOOL_LIMITS } from '../../src/domain/tools/rules';

/** The rules of a `tools` declaration (src/domain/tools/declarations.ts), beyond its JSON shape. */
describe('tool declarations', () => {
  const lookup: FunctionTool = {
    type: 'function',
    name: 'lookup_order',
    description: 'Looks up an order',
    parameters: { type: 'object', properties: { id: { type: 'string', minLength: 2 } }, required: ['id'] },
    url: 'https://tools.example.com/order',
  };

  it('accepts functions with object schemas and each built-in once', () => {
    expect(toolProblems([lookup, { type: 'hang_up' }, { type: 'transfer_call', destinations: ['+14155550100'] }])).toEqual([]);
  });

  it('names each problem by the tool’s field', () => {
    expect(toolProblems([{ ...lookup, parameters: { type: 'object', properties: { id: { type: 12 } } } }])).toEqual([
      { field: 'tools.0.parameters', message: expect.stringMatching(/^Not a valid JSON Schema: /) },
    ]);
    expect(toolProblems([{ ...lookup, parameters: { type: 'array' } }])[0].field).toBe('tools.0.parameters');
    const huge = { type: 'object', description: 'x'.repeat(TOOL_LIMITS.maxParametersBytes) };
    expect(toolProblems([{ ...lookup, parameters: huge }])[0].message).toMatch(/at most 8192 bytes/);
    expect(toolProblems([lookup, { type: 'hang_up' }, lookup])).toEqual([
      { field: 'tools.2.name', message: 'Declared twice: lookup_order' },
    ]);
    expect(toolProblems([{ type: 'hang_up' }, { type: 'hang_up' }])).toEqual([
      { field: 'tools.1.type', message: 'Declared twice: hang_up' },
    ]);
    expect(toolProblems([{ ...lookup, name: 'send_sms' }])[0].field).toBe('tools.0.name');
    expect(toolProblems([{ ...lookup, url: 'ftp://tools.example.com' }])).toEqual([
      { field: 'tools.0.url', message: 'Must be an http or https URL' },
    ]);
    expect(toolProblems([{ type: 'transfer_call', destinations: ['+14155550100', '4155550100'] }])).toEqual([
      { field: 'tools.0.destinations.1', message: expect.stringMatching(/E\.164/) },
    ]);
  });

  it('checks a model’s arguments against the schema, and reads only JSON objects', () => {
    expect(argumentsProblem(lookup, { id: 'A7' })).toBeNull();
    expect(argumentsProblem(lookup, { id: 'A' })).toMatch(/\/id must NOT have fewer than 2 characters/);
    expect(argumentsProblem(lookup, {})).toMatch(/must have required property 'id'/);
    expect(parseArguments('{"id":"A7"}')).toEqual({ ok: true, value: { id: 'A7' } });
    expect(parseArguments('')).toEqual({ ok: true, value: {} });
    expect(parseArguments('[1]')).toEqual({ ok: false, problem: 'arguments must be a JSON object' });
    expect(parseArguments('{"id":')).toEqual({ ok: false, problem: 'arguments must be a JSON object' });
    expect(parseArguments('x'.repeat(TOOL_LIMITS.maxArgumentsChars + 1)).ok).toBe(false);
  });

  it('offers a built-in as a function whose arguments are what the declaration allows', () => {
    const transfer = offeredFunction({ type: 'transfer_call', destinations: ['+14155550100'], description: 'To billing' });
    expect(transfer).toMatchObject({ name: 'transfer_call', description: 'To billing' });
    expect(transfer.parameters).toMatchObject({ properties: { destination: { enum: ['+14155550100'] } }, required: ['destination'] });
    expect(offeredFunction(lookup)).toEqual({ name: 'lookup_order', description: 'Looks up an order', parameters: lookup.parameters });
  });
});
