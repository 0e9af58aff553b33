import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { buildOpenApiDocument, inlineRefs } from '../../api/openapi/document';
import { offeredTo } from '../../api/mcp/access';
import { mcpTools, outputSchemaOf } from '../../api/mcp/tools';
import { acceptJsonOnlyClients, answersWithJson } from '../../api/mcp/transportMode';
import { allRoutes } from '../../api/routes';
import type { RouteDef } from '../../api/routeTable';
import { SCOPES } from '../../src/domain/keys/scopes';
import { mcpEndpoint, runMcpStdio } from '../../src/main/mcp';
import type http from 'node:http';

/** The MCP tools' schemas are the OpenAPI schemas of their operations, not a copy kept by hand; their words are the catalogue's. */
describe('MCP tools', () => {
  const routes = allRoutes(() => '');
  const tools = mcpTools(routes);
  const tool = (name: string) => tools.find((t) => t.name === name)!;
  const withoutDescription = (schema: object) => {
    const { description: _ignored, ...rest } = schema as { description?: string };
    return rest;
  };

  it('offers the issue’s tools, each named once', () => {
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of ['list_lines', 'create_line', 'place_call', 'get_call', 'hang_up', 'speak', 'wait_for_reply', 'press_digits'])
      expect(names).toContain(name);
    for (const name of [
      'send_sms',
      'list_conversations',
      'get_conversation',
      'check_consent',
      'get_balance',
      'wait_for_call',
      'follow_call',
    ])
      expect(names).toContain(name);
    // Campaigns (issue 31, item 2).
    for (const name of [
      'create_campaign',
      'list_campaigns',
      'get_campaign',
      'get_campaign_results',
      'pause_campaign',
      'resume_campaign',
      'cancel_campaign',
      'upload_contact_list',
      'list_contact_lists',
      'get_contact_list',
    ])
      expect(names).toContain(name);
  });

  it('takes each argument from its operation: path and query parameters, body fields, Idempotency-Key', () => {
    for (const { route, inputSchema, placement, streams } of tools) {
      if (streams) continue;
      const argumentOf = (apiName: string) => Object.entries(placement).find(([, p]) => p.name === apiName)![0];
      const body = route.doc.requestBody
        ? (inlineRefs(route.doc.requestBody.content['application/json'].schema) as {
            properties?: Record<string, object>;
            required?: string[];
          })
        : undefined;
      for (const [field, schema] of Object.entries(body?.properties ?? {}))
        expect(withoutDescription(inputSchema.properties[argumentOf(field)])).toEqual(withoutDescription(schema));
      for (const parameter of route.doc.parameters ?? []) {
        if (parameter.in === 'header') continue;
        expect(withoutDescription(inputSchema.properties[argumentOf(parameter.name)])).toEqual(
          withoutDescription(inlineRefs(parameter.schema)),
        );
        expect(placement[argumentOf(parameter.name)].in).toBe(parameter.in);
      }
      const expected = [
        ...(route.doc.parameters ?? []).filter((p) => p.in === 'path' || (p.in === 'query' && p.required)).map((p) => argumentOf(p.name)),
        ...(route.doc.requestBody?.required ? (body?.required ?? []) : []),
        // An upload's file is one text argument (the contact list's CSV).
        ...(route.upload ? ['csv'] : []),
      ];
      expect([...(inputSchema.required ?? [])].sort()).toEqual(expected.sort());
      expect('idempotency_key' in inputSchema.properties).toBe(route.idempotency !== undefined);
      expect(inputSchema.additionalProperties).toBe(false);
    }
    const place = tool('place_call');
    expect(place.inputSchema.required).toEqual(['line_id', 'to_number']);
    expect(place.route.operationId).toBe('placeCall');
    // Per-call variables and metadata reach agents as the API takes them (issue 29).
    expect(place.inputSchema.properties).toMatchObject({ variables: { type: 'object' }, metadata: { type: 'object' } });
  });

  it('create_line offers agent lines, and says an agent that talks on calls itself wants one (issue 29)', () => {
    const create = tool('create_line');
    expect(create.inputSchema.properties.mode).toMatchObject({ enum: expect.arrayContaining(['agent', 'hosted', 'webhook', 'audio']) });
    expect((create.inputSchema.properties.mode as { description: string }).description).toMatch(
      /`agent` \(you, through speak and wait_for_reply/,
    );
    expect(create.inputSchema.required).toEqual(['name', 'mode']);
  });

  it('names arguments as the API does: get_conversation takes line_id and phone_number for the route’s lineId and phoneNumber', () => {
    const conversation = tool('get_conversation');
    expect(Object.keys(conversation.inputSchema.properties)).toEqual(expect.arrayContaining(['line_id', 'phone_number']));
    expect(conversation.inputSchema.properties).not.toHaveProperty('lineId');
    expect(conversation.placement.line_id).toEqual({ in: 'path', name: 'lineId' });
    expect(conversation.placement.phone_number).toEqual({ in: 'path', name: 'phoneNumber' });
    expect(tool('wait_for_call').placement.line_id).toEqual({ in: 'path', name: 'id' });
    for (const { name, inputSchema } of tools)
      for (const argument of Object.keys(inputSchema.properties)) expect(`${name}.${argument}`).toMatch(/^[a-z_]+\.[a-z_]+$/);
  });

  it('describes every argument, and each id says which resource it names', () => {
    for (const { name, inputSchema } of tools)
      for (const [argument, schema] of Object.entries(inputSchema.properties)) {
        const description = (schema as { description?: string }).description;
        expect([`${name}.${argument}`, typeof description]).toEqual([`${name}.${argument}`, 'string']);
        if (argument === 'id' || argument.endsWith('_id')) expect(description).toMatch(/^The (call|line|campaign|contact list)’?'?s id/);
        // Words for a model: no HTTP statuses, paths or error codes to decode.
        expect([`${name}.${argument}`, /\b[45]\d\d `|with [45]\d\d\b|\/api\//.test(description!)]).toEqual([`${name}.${argument}`, false]);
      }
    expect((tool('get_call').inputSchema.properties.id as { description: string }).description).toMatch(/call's id/);
    expect((tool('get_line').inputSchema.properties.id as { description: string }).description).toMatch(/line's id/);
  });

  it('gives each tool a title, hints that agree with its operation, and words on when to use it and what refusals mean', () => {
    for (const { name, title, description, annotations, route, streams } of tools) {
      expect([name, typeof title, title.length > 0]).toEqual([name, 'string', true]);
      expect(annotations.title).toBe(title);
      // A GET changes nothing; anything else does (follow_call reads through GET).
      expect([name, annotations.readOnlyHint]).toEqual([name, route.method === 'get']);
      if (!annotations.readOnlyHint)
        expect([name, typeof annotations.destructiveHint, typeof annotations.idempotentHint]).toEqual([name, 'boolean', 'boolean']);
      expect([name, typeof annotations.openWorldHint]).toEqual([name, 'boolean']);
      // Words for a model, not an HTTP reference.
      expect(description).not.toMatch(/\b(GET|POST|PATCH|DELETE) \/|\(4\d\d\)|\/api\/v1/);
      if (!streams) expect(description.length).toBeGreaterThan(40);
    }
    expect(tool('hang_up').annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(tool('transfer_call').annotations).toMatchObject({ destructiveHint: true });
    expect(tool('place_call').annotations).toMatchObject({ openWorldHint: true, destructiveHint: false });
    expect(tool('send_sms').annotations).toMatchObject({ openWorldHint: true });
    expect(tool('get_call').annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(tool('speak').description).toMatch(/`call_not_active`: the call is not in progress/);
    // A campaign's tools say what their refusals mean of a campaign, not of a line.
    expect(tool('get_campaign').description).toMatch(/`not_found`: no such campaign is visible to you: check the id \(list_campaigns\)/);
    expect(tool('cancel_campaign').description).toMatch(/`campaign_ended`: the campaign has already completed or been cancelled/);
    expect(tool('cancel_campaign').annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(tool('pause_campaign').annotations).toMatchObject({ destructiveHint: false, idempotentHint: true });
    expect(tool('create_campaign').annotations).toMatchObject({ openWorldHint: true, idempotentHint: false });
    // The contacts are `contacts` or an uploaded list's `contact_list_id`, exactly one: the API names the one missing.
    expect(tool('create_campaign').inputSchema.required).toEqual(['line_ids']);
    // A contact list is uploaded as CSV text through the upload operation itself: the file is the request's body.
    const upload = tool('upload_contact_list');
    expect(upload.route.operationId).toBe('uploadCampaignContactList');
    expect(upload.placement.csv).toEqual({ in: 'upload', name: 'csv' });
    expect(upload.inputSchema.required).toEqual(['csv']);
    expect(upload.description).toMatch(/MAX_BODY_BYTES, 1 MiB by default/);
    expect(tool('get_contact_list').description).toMatch(/`not_found`: no such contact list is visible to you/);
    expect(tools.map((t) => t.name)).not.toContain('delete_contact_list');
  });

  it('declares as output schema the operation’s 2xx body schema, which its documented example satisfies', () => {
    const document = buildOpenApiDocument(routes, 'test') as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { example?: unknown }> }> }>>;
    };
    const validator = new AjvJsonSchemaValidator();
    for (const t of tools) {
      if (t.streams) continue;
      const [status, response] = Object.entries(t.route.doc.responses).find(([s]) => s.startsWith('2'))!;
      expect([t.name, t.outputSchema?.type]).toEqual([t.name, 'object']);
      expect(t.outputSchema).toEqual(outputSchemaOf(t.route));
      const declared = inlineRefs(response.content!['application/json'].schema) as { type?: string };
      if (declared.type === 'object') expect(t.outputSchema).toEqual(declared);
      const example = document.paths[t.route.path][t.route.method].responses[status].content?.['application/json']?.example;
      expect([t.name, validator.getValidator(t.outputSchema!)(example).valid]).toEqual([t.name, true]);
    }
    // check_consent answers one of two objects.
    expect(tool('check_consent').outputSchema).toMatchObject({ type: 'object', oneOf: expect.any(Array) });
  });

  it('offers a key only the tools its tier, scopes and line binding allow (the rules its routes apply)', () => {
    const key = (overrides: Record<string, unknown>) =>
      ({ key: { permissions: 'full', scopes: [...SCOPES], line_id: null, grant_numbers: null, ...overrides } }) as never;
    const names = (principal: never) => tools.filter(offeredTo(principal)).map((t) => t.name);
    expect(names(key({}))).toEqual(tools.map((t) => t.name));

    const callOnlyBound = names(key({ permissions: 'call_only', line_id: '7a2c0f7e-2f1c-4a8e-9b1a-0f3f7d1f1e11' }));
    expect(callOnlyBound).toEqual(expect.arrayContaining(['place_call', 'speak', 'wait_for_call', 'follow_call', 'get_call', 'hang_up']));
    expect(callOnlyBound).not.toEqual(expect.arrayContaining(['create_line']));
    expect(callOnlyBound).not.toContain('send_sms');

    const readOnly = names(key({ permissions: 'read_only' }));
    expect(readOnly.every((name) => tool(name).annotations.readOnlyHint)).toBe(true);
    expect(readOnly).toContain('follow_call');

    // A full key bound to a line cannot add lines; nor can one held to an allow-list.
    expect(names(key({ line_id: '7a2c0f7e-2f1c-4a8e-9b1a-0f3f7d1f1e11' }))).not.toContain('create_line');
    expect(names(key({ grant_numbers: [] }))).not.toContain('create_line');
    // A scoped token with `read` only: no balance (billing:read), no lines (numbers:read).
    const readScope = names(key({ scopes: ['read'] }));
    expect(readScope).toEqual(expect.arrayContaining(['get_call', 'list_calls', 'follow_call', 'check_consent']));
    expect(readScope).not.toContain('get_balance');
    expect(readScope).not.toContain('list_lines');
    expect(readScope).toEqual(expect.arrayContaining(['list_campaigns', 'get_campaign', 'get_campaign_results']));
    expect(readScope).not.toEqual(expect.arrayContaining(['create_campaign']));
    // Creating is a call (calls:create), controlling is calls:control, as on the API; a line-bound key keeps them (its own lines).
    const campaignTools = ['create_campaign', 'pause_campaign', 'resume_campaign', 'cancel_campaign'];
    expect(names(key({ scopes: ['read', 'calls:create'] }))).toEqual(expect.arrayContaining(['create_campaign']));
    expect(names(key({ scopes: ['read', 'calls:create'] }))).not.toContain('pause_campaign');
    expect(names(key({ scopes: ['read', 'calls:control'] }))).toEqual(
      expect.arrayContaining(['pause_campaign', 'resume_campaign', 'cancel_campaign']),
    );
    expect(names(key({ line_id: '7a2c0f7e-2f1c-4a8e-9b1a-0f3f7d1f1e11' }))).toEqual(expect.arrayContaining(campaignTools));
    expect(readOnly).not.toEqual(expect.arrayContaining(['create_campaign']));
    expect(readOnly).toContain('get_campaign_results');
  });

  it('refuses to build a tool whose parameter and body field share a name', () => {
    const speak = routes.find((r) => r.operationId === 'speakOnCall')!;
    const clash: RouteDef = {
      ...speak,
      doc: {
        summary: 'x',
        parameters: [{ name: 'text', in: 'query', schema: { type: 'string' } }, ...speak.doc.parameters!],
        requestBody: speak.doc.requestBody,
        responses: speak.doc.responses,
      },
    };
    expect(() => mcpTools(routes.map((r) => (r.operationId === 'speakOnCall' ? clash : r)))).toThrow(/text is both query and body/);
  });

  it('answers in JSON unless a streaming tool is called by a client that takes SSE; a JSON-only client is let through for JSON', () => {
    const byName = new Map(tools.map((t) => [t.name, t]));
    const both = 'application/json, text/event-stream';
    const callOf = (name: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });
    expect(answersWithJson(callOf('get_call'), both, byName)).toBe(true);
    expect(answersWithJson({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, both, byName)).toBe(true);
    expect(answersWithJson(callOf('follow_call'), both, byName)).toBe(false);
    expect(answersWithJson(callOf('follow_call'), 'application/json', byName)).toBe(true);

    const req = { headers: { accept: 'application/json' }, rawHeaders: ['Host', 'x', 'Accept', 'application/json'] };
    acceptJsonOnlyClients(req as unknown as http.IncomingMessage);
    expect(req.headers.accept).toBe('application/json, text/event-stream');
    expect(req.rawHeaders[3]).toBe('application/json, text/event-stream');
    const none = { headers: {}, rawHeaders: [] as string[] };
    acceptJsonOnlyClients(none as unknown as http.IncomingMessage);
    expect(none.headers).toEqual({});
  });

  it('the stdio entry needs a key, and finds /mcp under the configured base URL', async () => {
    await expect(runMcpStdio({})).rejects.toThrow(/SWITCHBOARD_API_KEY/);
    expect(mcpEndpoint('http://127.0.0.1:8080').href).toBe('http://127.0.0.1:8080/mcp');
    expect(mcpEndpoint('https://tel.example.com/switchboard/').href).toBe('https://tel.example.com/switchboard/mcp');
  });
});
