import crypto from 'node:crypto';
import YAML from 'yaml';
import { webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';

/** Request validation comes from the served OpenAPI document, through ajv. */
describe('OpenAPI document and request validation', () => {
  const { h, tenant } = useSuite({ worker: true, tenant: 'file' });

  const create = (body: unknown) => h.request('POST', '/api/v1/lines', { key: tenant.keys.test, body });

  it('serves an OpenAPI 3.1 document that describes every route it serves', async () => {
    const res = await h.request('GET', '/api/openapi.yaml');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/yaml/);
    const doc = YAML.parse(res.text);
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/lines', '/api/v1/lines/{id}', '/healthz', '/readyz']));
    const post = doc.paths['/api/v1/lines'].post;
    expect(post['x-required-scope']).toBe('numbers:provision');
    expect(post.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/LineCreateRequest');
    expect(doc.components.schemas.LineCreateRequest.required).toEqual(['name', 'mode']);
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['201', '401', '402', '403', '422']));
  });

  it.each([
    ['missing name', { mode: 'webhook', webhook_url: 'https://a.example.test' }, 'name', 'Required'],
    ['missing mode', { name: 'x' }, 'mode', 'Required'],
    ['unknown mode', { name: 'x', mode: 'fax' }, 'mode', 'Must be one of: hosted, webhook, audio, agent, text'],
    ['unknown field', { ...webhookLine(), colour: 'blue' }, 'colour', 'Unknown field'],
    ['wrong type', webhookLine({ recording_enabled: 'yes' }), 'recording_enabled', 'Must be boolean'],
    ['language outside the list', webhookLine({ language: 'xx' }), 'language', expect.stringContaining('Must be one of: multi, en')],
    ['endpointing_ms out of range', webhookLine({ endpointing_ms: 50 }), 'endpointing_ms', 'Must be >= 100'],
    ['context_limit not an integer', webhookLine({ context_limit: 2.5 }), 'context_limit', 'Must be integer or null'],
    ['empty name', webhookLine({ name: '' }), 'name', 'Must NOT have fewer than 1 characters'],
  ])('422 validation_error: %s', async (_label, body, field, message) => {
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toContainEqual({ field, message });
  });

  it.each([
    ['hosted without system_prompt', { name: 'x', mode: 'hosted' }, 'system_prompt'],
    ['webhook without webhook_url', { name: 'x', mode: 'webhook' }, 'webhook_url'],
    ['audio without audio_handler_url', { name: 'x', mode: 'audio' }, 'audio_handler_url'],
    ['audio with an http handler', { name: 'x', mode: 'audio', audio_handler_url: 'https://a.example.test/ws' }, 'audio_handler_url'],
    ['webhook_url that is not http', webhookLine({ webhook_url: 'ftp://a.example.test' }), 'webhook_url'],
    ['status_callback_url that is not a URL', webhookLine({ status_callback_url: 'not a url' }), 'status_callback_url'],
    ['unknown voice', webhookLine({ voice: 'robot-9000' }), 'voice'],
    ['raw vendor voice id', webhookLine({ voice: 'EXAVITQu4vr4xnSDxMaL' }), 'voice'],
  ])('422 validation_error per mode rules: %s', async (_label, body, field) => {
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('reports every invalid field at once', async () => {
    const res = await create({ mode: 'webhook', recording_enabled: 1, endpointing_ms: 5000 });
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'endpointing_ms',
      'name',
      'recording_enabled',
      'webhook_url',
    ]);
  });

  it('400 hosted_mode_language_pinning_unsupported when a hosted line sets a language, multi included (spec rule 2)', async () => {
    const res = await create({ name: 'x', mode: 'hosted', system_prompt: 'Be kind', language: 'en' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('hosted_mode_language_pinning_unsupported');
    const multi = await create({ name: 'x', mode: 'hosted', system_prompt: 'Be kind', language: 'multi' });
    expect(multi.status).toBe(400);
    expect(multi.body.error.code).toBe('hosted_mode_language_pinning_unsupported');
    const unset = await create({ name: 'x', mode: 'hosted', system_prompt: 'Be kind' });
    expect(unset.status).toBe(201);
    expect(unset.body.line.language).toBe('multi');
    const patched = await h.request('PATCH', `/api/v1/lines/${unset.body.line.id}`, { key: tenant.keys.test, body: { language: 'multi' } });
    expect(patched.status).toBe(400);
    expect(patched.body.error.code).toBe('hosted_mode_language_pinning_unsupported');
  });

  it('trims the voice slug and clears an empty one', async () => {
    const trimmed = await create(webhookLine({ voice: '  aria ' }));
    expect(trimmed.body.line.voice).toBe('aria');
    const cleared = await create(webhookLine({ voice: '   ' }));
    expect(cleared.body.line.voice).toBeNull();
  });

  it('a path id that is not a UUID is simply not found', async () => {
    const res = await h.request('GET', '/api/v1/lines/not-a-uuid', { key: tenant.keys.test });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it.each([
    ['GET', ''],
    ['POST', '/hangup'],
    ['POST', '/speak'],
    ['POST', '/wait'],
    ['POST', '/press'],
    ['POST', '/transfer'],
  ])('a call id that is not a UUID answers like an unknown call: %s /api/v1/calls/{id}%s', async (method, suffix) => {
    const body = { '/speak': { text: 'Hello' }, '/press': { digits: '1' }, '/transfer': { to_number: '+14155552671' } }[suffix];
    const malformed = await h.request(method, `/api/v1/calls/not-a-uuid${suffix}`, { key: tenant.keys.test, body });
    const unknown = await h.request(method, `/api/v1/calls/${crypto.randomUUID()}${suffix}`, { key: tenant.keys.test, body });
    expect(malformed.status).toBe(404);
    expect(malformed.body).toEqual(unknown.body);
    expect(malformed.body.error.code).toBe('call_not_found');
  });

  it('a concrete path wins over a template: GET /api/v1/calls/conversation is 405 with Allow: POST, not the call "conversation"', async () => {
    for (const key of [tenant.keys.test, undefined]) {
      const res = await h.request('GET', '/api/v1/calls/conversation', { key });
      expect(res.status).toBe(405);
      expect(res.body.error.code).toBe('method_not_allowed');
      expect(res.headers.get('allow')).toBe('POST');
    }
    expect((await h.request('GET', `/api/v1/calls/${crypto.randomUUID()}`, { key: tenant.keys.test })).body.error.code).toBe(
      'call_not_found',
    );
  });

  it('422 for a NUL character (U+0000) in any body or query string, which Postgres cannot store', async () => {
    const disclosure = await h.request('POST', '/api/v1/disclosures', {
      key: tenant.keys.test,
      body: { message: 'Hi\u0000there', jurisdiction: 'U\u0000S' },
    });
    expect(disclosure.status).toBe(422);
    expect(disclosure.body.error).toMatchObject({
      code: 'validation_error',
      details: [
        { field: 'message', message: 'Must not contain the NUL character (U+0000)' },
        { field: 'jurisdiction', message: 'Must not contain the NUL character (U+0000)' },
      ],
    });
    expect(await h.db('disclosures').where({ workspace_id: tenant.workspaceId })).toEqual([]);
    const line = await create(webhookLine({ name: 'a\u0000b', system_prompt: 'ok' }));
    expect(line.status).toBe(422);
    expect(line.body.error.details).toEqual([{ field: 'name', message: 'Must not contain the NUL character (U+0000)' }]);
    const audit = await h.request('GET', '/api/v1/compliance/audit?event_type=a%00b', { key: tenant.keys.test });
    expect(audit.status).toBe(422);
    expect(audit.body.error.details).toEqual([{ field: 'event_type', message: 'Must not contain the NUL character (U+0000)' }]);
  });

  it("422 for a NUL character in a key of a free-form object (a tool's parameters, metadata), named on one line", async () => {
    const tool = {
      type: 'function',
      name: 'lookup',
      description: 'Looks an order up',
      url: 'https://tools.example.com/lookup',
      parameters: { type: 'object', properties: { 'order\u0000id': { type: 'string' } }, 'x\nnote': { 'a\u0000': 1 } },
    };
    const line = await create({ ...webhookLine(), mode: 'hosted', system_prompt: 'ok', webhook_url: undefined, tools: [tool] });
    expect(line.status).toBe(422);
    expect(line.body.error.details).toEqual([
      { field: 'tools.0.parameters.properties.order\\u0000id', message: 'Must not contain the NUL character (U+0000), in a key' },
      { field: 'tools.0.parameters.x\\nnote.a\\u0000', message: 'Must not contain the NUL character (U+0000), in a key' },
    ]);
    const call = await h.request('POST', '/api/v1/calls', {
      key: tenant.keys.test,
      body: { line_id: crypto.randomUUID(), to_number: '+14155550100', metadata: { 'ref\u0000': 'x' } },
    });
    expect(call.status).toBe(422);
    // The document states it for metadata (its keys' pattern), so the schema names the field before the NUL check.
    expect(call.body.error.code).toBe('validation_error');
    expect(call.body.error.details.map((detail: { field: string }) => detail.field)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^metadata/)]),
    );
    expect(call.body.error.details.every((detail: { field: string }) => detail.field.startsWith('metadata'))).toBe(true);
  });
});
