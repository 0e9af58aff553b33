import { inlineRefs } from '../openapi/document';
import type { RouteDef } from '../routeTable';

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
  ['speak', 'speakOnCall', 'waits'],
  ['wait_for_reply', 'waitOnCall', 'waits'],
  ['press_digits', 'pressOnCall'],
  ['transfer_call', 'transferCall', 'rings'],
  ['send_sms', 'sendMessage'],
  ['list_conversations', 'listConversations'],
  ['get_conversation', 'getConversation'],
  ['check_consent', 'checkConsent'],
  ['get_balance', 'getBalance'],
] as const;

/** Said to the agent beside the operation's own documentation. */
const NOTES = {
  waits: 'The answer can take up to timeout_seconds: give the MCP request a longer timeout than that (the SDK client defaults to 60 s).',
  rings: 'The answer comes once the destination answered or gave up ringing (about 30 s at most).',
};

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
  return TOOL_OPERATIONS.map(([name, operationId, note]: readonly string[]) => {
    const route = routes.find((r) => r.operationId === operationId);
    if (!route) throw new Error(`MCP tool ${name}: no operation ${operationId}`);
    return toolOf(name, route, note ? NOTES[note as keyof typeof NOTES] : undefined);
  });
}

function toolOf(name: string, route: RouteDef, note: string | undefined): Tool {
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
  const description = [route.doc.summary, route.doc.description, note]
    .filter((text): text is string => Boolean(text))
    .map((text) => (/[.!?]$/.test(text) ? text : `${text}.`))
    .concat(`(${route.method.toUpperCase()} ${route.path})`)
    .join(' ');
  return { name, description, inputSchema, route, placement };
}
