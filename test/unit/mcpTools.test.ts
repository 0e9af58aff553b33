import { inlineRefs } from '../../api/openapi/document';
import { mcpTools } from '../../api/mcp/tools';
import { allRoutes } from '../../api/routes';
import type { RouteDef } from '../../api/routeTable';
import { mcpEndpoint, runMcpStdio } from '../../src/main/mcp';

/** The MCP tools' input schemas are the OpenAPI request schemas of their operations, not a copy kept by hand. */
describe('MCP tools', () => {
  const routes = allRoutes(() => '');
  const tools = mcpTools(routes);

  it('offers the issue’s tools, each named once', () => {
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of ['list_lines', 'create_line', 'place_call', 'get_call', 'hang_up', 'speak', 'wait_for_reply', 'press_digits'])
      expect(names).toContain(name);
    for (const name of ['send_sms', 'list_conversations', 'get_conversation', 'check_consent', 'get_balance'])
      expect(names).toContain(name);
  });

  it('takes each argument from its operation: path and query parameters, body fields, Idempotency-Key', () => {
    for (const tool of tools) {
      const { route, inputSchema } = tool;
      const body = route.doc.requestBody
        ? (inlineRefs(route.doc.requestBody.content['application/json'].schema) as {
            properties?: Record<string, object>;
            required?: string[];
          })
        : undefined;
      for (const [field, schema] of Object.entries(body?.properties ?? {})) expect(inputSchema.properties[field]).toEqual(schema);
      for (const parameter of route.doc.parameters ?? []) {
        if (parameter.in === 'header') continue;
        expect(inputSchema.properties[parameter.name]).toMatchObject(inlineRefs(parameter.schema));
      }
      const expected = [
        ...(route.doc.parameters ?? []).filter((p) => p.in === 'path' || (p.in === 'query' && p.required)).map((p) => p.name),
        ...(route.doc.requestBody?.required ? (body?.required ?? []) : []),
      ];
      expect([...(inputSchema.required ?? [])].sort()).toEqual(expected.sort());
      expect('idempotency_key' in inputSchema.properties).toBe(route.idempotency !== undefined);
      expect(inputSchema.additionalProperties).toBe(false);
    }
    const place = tools.find((t) => t.name === 'place_call')!;
    expect(place.inputSchema.required).toEqual(['line_id', 'to_number']);
    expect(place.route.operationId).toBe('placeCall');
    // Per-call variables and metadata reach agents as the API takes them (issue 29).
    expect(place.inputSchema.properties).toMatchObject({ variables: { type: 'object' }, metadata: { type: 'object' } });
  });

  it('refuses to build a tool whose parameter and body field share a name', () => {
    const clash: RouteDef = {
      ...routes.find((r) => r.operationId === 'speakOnCall')!,
      doc: {
        summary: 'x',
        parameters: [
          { name: 'text', in: 'query', schema: { type: 'string' } },
          ...routes.find((r) => r.operationId === 'speakOnCall')!.doc.parameters!,
        ],
        requestBody: routes.find((r) => r.operationId === 'speakOnCall')!.doc.requestBody,
        responses: {},
      },
    };
    expect(() => mcpTools(routes.map((r) => (r.operationId === 'speakOnCall' ? clash : r)))).toThrow(/text is both query and body/);
  });

  it('the stdio entry needs a key, and finds /mcp under the configured base URL', async () => {
    await expect(runMcpStdio({})).rejects.toThrow(/SWITCHBOARD_API_KEY/);
    expect(mcpEndpoint('http://127.0.0.1:8080').href).toBe('http://127.0.0.1:8080/mcp');
    expect(mcpEndpoint('https://tel.example.com/switchboard/').href).toBe('https://tel.example.com/switchboard/mcp');
  });
});
