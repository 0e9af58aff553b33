import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { RouteDef } from '../routeTable';

/** An MCP tool: what tools/list shows of it, and how a call of it reaches its route (api/mcp/tools.ts builds them). */
export interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, object>;
  required?: string[];
  additionalProperties: false;
}

/** Where a tool argument goes in its route's request, under the route's own name for it. */
export interface Placement {
  /** `upload`: the whole request body, sent as written with the route's upload media type (a CSV file's text). */
  in: 'path' | 'query' | 'body' | 'idempotency' | 'upload';
  name: string;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  inputSchema: JsonSchemaObject;
  /** The operation's 2xx body schema, when it is an object (MCP output schemas are). */
  outputSchema?: { type: 'object' } & Record<string, unknown>;
  /** The route that answers the tool, and whose scope and tier decide who is offered it. */
  route: RouteDef;
  placement: Record<string, Placement>;
  /** Refused to keys held to particular lines (api/mcp/access.ts). */
  workspaceWide: boolean;
  /** Answered by follow_call's own loop (api/mcp/follow.ts), which streams its progress, not by one request. */
  streams?: true;
}
