import { inlineRefs } from '../openapi/document';
import type { RouteDef } from '../routes/types';

/**
 * The MCP tools: each is one operation of the route table, named for an agent. A tool's input
 * schema is derived from its operation's parameters and request body (the OpenAPI schemas), and a
 * call is dispatched to that route, whose chain validates and authorises it (api/mcp/server.ts).
 */
const TOOL_OPERATIONS = [
  ['list_lines', 'listLines'],
  ['get_line', 'getLine'],
  ['create_line', 'createLine'],
  ['place_call', 'placeCall'],
  ['list_calls', 'listCalls'],
  ['get_call', 'getCall'],
  ['hang_up', 'hangUpCall'],
  ['speak', 'speakOnCall'],
  ['wait_for_reply', 'waitOnCall'],
  ['press_digits', 'pressOnCall'],
  ['send_sms', 'sendMessage'],
  ['list_conversations', 'listConversations'],
  ['get_conversation', 'getConversation'],
  ['check_consent', 'checkConsent'],
  ['get_balance', 'getBalance'],
] as const;

/** The argument that carries an operation's `Idempotency-Key` header. */
export const IDEMPOTENCY_ARGUMENT = 'idempotency_key';

export interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, object>;
  required?: string[];
  additionalProperties: false;
}

export interface Tool {
  name: string;
  description: string;
  inputSchema: JsonSchemaObject;
  route: RouteDef;
  /** Where each argument goes in the request. */
  placement: Record<string, 'path' | 'query' | 'body' | 'idempotency'>;
}

export function mcpTools(routes: readonly RouteDef[]): Tool[] {
  return TOOL_OPERATIONS.map(([name, operationId]) => {
    const route = routes.find((r) => r.operationId === operationId);
    if (!route) throw new Error(`MCP tool ${name}: no operation ${operationId}`);
    return toolOf(name, route);
  });
}

function toolOf(name: string, route: RouteDef): Tool {
  const properties: Record<string, object> = {};
  const required: string[] = [];
  const placement: Tool['placement'] = {};
  const add = (argument: string, where: Tool['placement'][string], schema: object, isRequired: boolean) => {
    if (placement[argument]) throw new Error(`MCP tool ${name}: argument ${argument} is both ${placement[argument]} and ${where}`);
    placement[argument] = where;
    properties[argument] = inlineRefs(schema);
    if (isRequired) required.push(argument);
  };
  for (const parameter of route.doc.parameters ?? []) {
    if (parameter.in === 'header') continue;
    const schema = parameter.description ? { ...parameter.schema, description: parameter.description } : parameter.schema;
    add(parameter.name, parameter.in, schema, parameter.in === 'path' || parameter.required === true);
  }
  const body = route.doc.requestBody;
  if (body) {
    const schema = inlineRefs(body.content['application/json'].schema) as { properties?: Record<string, object>; required?: string[] };
    for (const [field, fieldSchema] of Object.entries(schema.properties ?? {}))
      add(field, 'body', fieldSchema, body.required && (schema.required ?? []).includes(field));
  }
  if (route.idempotency) {
    add(
      IDEMPOTENCY_ARGUMENT,
      'idempotency',
      {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        description: 'Sent as Idempotency-Key: a retry with the same value replays the first answer for 12 hours.',
      },
      route.idempotency.required,
    );
  }
  const inputSchema: JsonSchemaObject = { type: 'object', properties, additionalProperties: false };
  if (required.length > 0) inputSchema.required = required;
  const description = [route.doc.summary, route.doc.description, `(${route.method.toUpperCase()} ${route.path})`]
    .filter(Boolean)
    .join('. ');
  return { name, description, inputSchema, route, placement };
}
