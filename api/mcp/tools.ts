import { inlineRefs } from '../openapi/document';
import type { RouteDef } from '../routeTable';
import { ARGUMENTS, described, REFUSALS, TOOL_SPECS, type ToolSpec } from './catalogue';
import { CAMPAIGN_TOOL_SPECS } from './campaignTools';
import { followCallTool } from './follow';
import type { JsonSchemaObject, Placement, Tool } from './tool';

export type { Tool } from './tool';

/**
 * The MCP tools: each is one operation of the route table, named for an agent (api/mcp/catalogue.ts
 * says what the agent is told). A tool's input schema is derived from its operation's parameters and
 * request body, its output schema from the operation's 2xx response (the OpenAPI schemas), and a call
 * is dispatched to that route, whose chain validates and authorises it (api/mcp/server.ts).
 */

/** The argument that carries an operation's `Idempotency-Key` header. */
export const IDEMPOTENCY_ARGUMENT = 'idempotency_key';

/** The argument that carries an upload operation's file, as text (a contact list's CSV). */
export const UPLOAD_ARGUMENT = 'csv';

export function mcpTools(routes: readonly RouteDef[]): Tool[] {
  const routeOf = (operationId: string, tool: string) => {
    const route = routes.find((r) => r.operationId === operationId);
    if (!route) throw new Error(`MCP tool ${tool}: no operation ${operationId}`);
    return route;
  };
  const tools = [...TOOL_SPECS, ...CAMPAIGN_TOOL_SPECS].map((spec) => toolOf(spec, routeOf(spec.operationId, spec.name)));
  return [...tools, followCallTool(routeOf('getCall', 'follow_call'))];
}

function toolOf(spec: ToolSpec, route: RouteDef): Tool {
  const { name } = spec;
  const properties: Record<string, object> = {};
  const required: string[] = [];
  const placement: Tool['placement'] = {};
  const toolName = (apiName: string) => Object.entries(spec.rename ?? {}).find(([, routeName]) => routeName === apiName)?.[0] ?? apiName;
  const add = (apiName: string, where: Placement['in'], schema: object, isRequired: boolean) => {
    const argument = toolName(apiName);
    if (placement[argument]) throw new Error(`MCP tool ${name}: argument ${argument} is both ${placement[argument].in} and ${where}`);
    placement[argument] = { in: where, name: apiName };
    properties[argument] = described(inlineRefs(schema), spec.arguments?.[argument] ?? ARGUMENTS[argument]);
    if (isRequired) required.push(argument);
  };
  for (const parameter of route.doc.parameters ?? []) {
    if (parameter.in === 'header') continue;
    const schema = described(inlineRefs(parameter.schema), parameter.description);
    add(parameter.name, parameter.in, schema, parameter.in === 'path' || parameter.required === true);
  }
  const body = route.doc.requestBody;
  if (body) {
    const schema = inlineRefs(body.content['application/json'].schema) as { properties?: Record<string, object>; required?: string[] };
    for (const [field, fieldSchema] of Object.entries(schema.properties ?? {}))
      add(field, 'body', fieldSchema, body.required && (schema.required ?? []).includes(field));
  }
  if (route.upload) add(UPLOAD_ARGUMENT, 'upload', { type: 'string', minLength: 1, description: route.upload.description }, true);
  if (route.idempotency) {
    add(
      IDEMPOTENCY_ARGUMENT,
      'idempotency',
      {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        description:
          'Any unique string: send the same one again when retrying after an error or timeout, and the first answer is replayed instead of acting twice (for 12 hours)',
      },
      route.idempotency.required,
    );
  }
  for (const renamed of Object.keys(spec.rename ?? {}))
    if (!placement[renamed]) throw new Error(`MCP tool ${name}: ${renamed} renames no parameter of ${route.operationId}`);
  const inputSchema: JsonSchemaObject = { type: 'object', properties, additionalProperties: false };
  if (required.length > 0) inputSchema.required = required;
  return {
    name,
    title: spec.title,
    description: describe(spec),
    annotations: { title: spec.title, ...spec.annotations },
    inputSchema,
    outputSchema: outputSchemaOf(route),
    route,
    placement,
    workspaceWide: spec.workspaceWide === true,
  };
}

/** When to use the tool, then what each of its refusals means. */
function describe(spec: ToolSpec): string {
  const refusals = (spec.refusals ?? []).map((code) => `\`${code}\`: ${spec.refusalWords?.[code] ?? REFUSALS[code]}`);
  return refusals.length > 0 ? `${spec.use} If refused: ${refusals.join('; ')}.` : spec.use;
}

/**
 * The operation's success body schema, refs inlined. MCP output schemas describe an object: a body
 * that is one of several objects (check_consent's) is declared an object with that `oneOf`; any
 * other shape gets none.
 */
export function outputSchemaOf(route: RouteDef): Tool['outputSchema'] {
  const success = Object.entries(route.doc.responses).find(([status]) => status.startsWith('2'))?.[1];
  const declared = success?.content?.['application/json']?.schema;
  if (!declared) return undefined;
  const schema = inlineRefs(declared) as Record<string, unknown>;
  if (schema.type === 'object') return schema as Tool['outputSchema'];
  const variants = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(variants) && variants.every((v) => (v as { type?: unknown }).type === 'object')) return { ...schema, type: 'object' };
  return undefined;
}
