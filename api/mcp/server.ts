import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApiAnswer, Dispatch } from './dispatch';
import type { Tool } from './tools';

/** Resource not found, as the MCP specification numbers it. */
const RESOURCE_NOT_FOUND = -32002;
const TRANSCRIPT_URI = /^switchboard:\/\/calls\/([^/]+)\/transcript$/;
const RECENT_TRANSCRIPTS = 20;

const INSTRUCTIONS =
  'Switchboard: phone lines, calls and SMS for agents. Each tool is one operation of the Switchboard API, run with your API key: ' +
  'its scopes, tier, line binding, number allow-list and spend cap apply. A refusal is a tool error whose content is the ' +
  'API error envelope {"error": {"code", "message", "details"}}. A call: place_call, then speak / wait_for_reply / press_digits ' +
  'while it is in_progress, get_call for its status and transcript, hang_up to end it.';

/**
 * The MCP server of one request (stateless: nothing is kept between requests, so any API
 * process can answer any of them). Tools and resources are answered by dispatching to the API's
 * routes with the caller's key; nothing here decides what the caller may do.
 */
export function mcpServer(tools: readonly Tool[], dispatch: Dispatch, version: string): Server {
  const server = new Server({ name: 'switchboard', version }, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}`);
    return toolResult(await dispatch(requestOf(tool, request.params.arguments ?? {})));
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: 'switchboard://calls/{id}/transcript',
        name: 'call-transcript',
        title: 'Call transcript',
        description: 'What was said on a call, in order (the `transcript` of GET /api/v1/calls/{id})',
        mimeType: 'application/json',
      },
    ],
  }));

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const answer = await dispatch({ method: 'GET', path: `/api/v1/calls?limit=${RECENT_TRANSCRIPTS}` });
    const calls = (answerOrThrow(answer) as { calls: Array<{ id: string; to_number?: string; from_number?: string; status: string }> })
      .calls;
    return {
      resources: calls.map((call) => ({
        uri: `switchboard://calls/${call.id}/transcript`,
        name: `call-${call.id}-transcript`,
        title: `Transcript of call ${call.id} (${call.status})`,
        mimeType: 'application/json',
      })),
    };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const match = TRANSCRIPT_URI.exec(request.params.uri);
    if (!match) throw new McpError(RESOURCE_NOT_FOUND, `Unknown resource ${request.params.uri}`);
    const answer = await dispatch({ method: 'GET', path: `/api/v1/calls/${encodeURIComponent(decodeURIComponent(match[1]))}` });
    const call = (answerOrThrow(answer) as { call: { id: string; status: string; transcript: unknown } }).call;
    const text = JSON.stringify({ call_id: call.id, status: call.status, transcript: call.transcript });
    return { contents: [{ uri: request.params.uri, mimeType: 'application/json', text }] };
  });

  return server;
}

/** The API request a tool call stands for: each argument where the tool's operation takes it. */
function requestOf(tool: Tool, args: Record<string, unknown>) {
  const { route, placement } = tool;
  let path = route.path;
  const query = new URLSearchParams();
  const body: Record<string, unknown> = {};
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(args)) {
    const where = placement[name] ?? (route.doc.requestBody ? 'body' : 'query');
    if (where === 'path') path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
    else if (where === 'query') query.append(name, typeof value === 'string' ? value : JSON.stringify(value));
    else if (where === 'idempotency') headers['idempotency-key'] = String(value);
    // Unknown arguments go to the body (or query), where the route's validator refuses them.
    else body[name] = value;
  }
  const search = query.size > 0 ? `?${query.toString()}` : '';
  return {
    method: route.method.toUpperCase(),
    path: `${path}${search}`,
    body: route.doc.requestBody ? body : undefined,
    headers,
  };
}

/** A 2xx answer is the tool's result; any other is a tool error carrying the API's error envelope. */
function toolResult(answer: ApiAnswer): CallToolResult {
  const structured = isObject(answer.body) ? answer.body : { value: answer.body ?? null };
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(answer.body ?? null) }];
  if (answer.status >= 200 && answer.status < 300) return { content, structuredContent: structured };
  const retryAfter = answer.headers['retry-after'];
  if (typeof retryAfter === 'string') content.push({ type: 'text', text: `Retry after ${retryAfter} s.` });
  return { isError: true, content, structuredContent: structured };
}

/** A resource read has no error result: a refusal is a JSON-RPC error whose data is the envelope. */
function answerOrThrow(answer: ApiAnswer): unknown {
  if (answer.status >= 200 && answer.status < 300) return answer.body;
  const error = (answer.body as { error?: { code?: string; message?: string } } | undefined)?.error;
  const message = `${error?.code ?? `http_${answer.status}`}: ${error?.message ?? 'refused'}`;
  throw new McpError(answer.status === 404 ? RESOURCE_NOT_FOUND : ErrorCode.InvalidRequest, message, answer.body);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
