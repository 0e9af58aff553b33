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
import { COMMON_REFUSALS } from './catalogue';
import type { ApiAnswer, Dispatch } from './dispatch';
import { followCall } from './follow';
import type { Tool } from './tools';

/** Resource not found, as the MCP specification numbers it. */
const RESOURCE_NOT_FOUND = -32002;
const TRANSCRIPT_URI = /^switchboard:\/\/calls\/([^/]+)\/transcript$/;
const RECENT_TRANSCRIPTS = 20;

const INSTRUCTIONS =
  'Switchboard: phone lines, calls and SMS for agents. Each tool is one operation of the Switchboard API, run with your API key: ' +
  'its scopes, tier, line binding, number allow-list and spend cap apply, and only the tools your key may use are listed. ' +
  'An outbound call: place_call, then follow_call with until: "answered"; an inbound call: wait_for_call. While the call is in_progress, ' +
  'speak (with wait_for_response) or speak then wait_for_reply, press_digits, transfer_call; hang_up to end it. ' +
  'Many people to call for one purpose: create_campaign, then get_campaign and get_campaign_results ' +
  '(a long list of contacts: upload_contact_list first, then create_campaign with its contact_list_id). ' +
  COMMON_REFUSALS;

/**
 * The MCP server of one request (stateless: nothing is kept between requests, so any API
 * process can answer any of them). Tools and resources are answered by dispatching to the API's
 * routes with the caller's key; nothing here decides what the caller may do.
 */
export function mcpServer(tools: readonly Tool[], dispatch: Dispatch, version: string, offered: (tool: Tool) => boolean): Server {
  const server = new Server({ name: 'switchboard', version }, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.filter(offered).map(({ name, title, description, annotations, inputSchema, outputSchema }) => ({
      name,
      title,
      description,
      annotations,
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
    })),
  }));

  // Any tool may be called, listed or not: its route refuses what the key may not do, with its own code.
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}`);
    const args = request.params.arguments ?? {};
    if (tool.streams) {
      const context = {
        signal: extra.signal,
        progressToken: request.params._meta?.progressToken,
        sendNotification: extra.sendNotification,
      };
      return followCall(args, dispatch, context, toolResult);
    }
    return toolResult(await dispatch({ ...requestOf(tool, args), signal: extra.signal }));
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
  let upload: { mediaType: string; text: string } | undefined;
  for (const [argument, value] of Object.entries(args)) {
    // Unknown arguments go to the body (or query), where the route's validator refuses them.
    const { in: where, name } = placement[argument] ?? { in: route.doc.requestBody ? 'body' : 'query', name: argument };
    if (where === 'path') path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
    else if (where === 'query') query.append(name, typeof value === 'string' ? value : JSON.stringify(value));
    else if (where === 'idempotency') headers['idempotency-key'] = String(value);
    else if (where === 'upload' && route.upload) upload = { mediaType: route.upload.mediaType, text: String(value) };
    else body[name] = value;
  }
  const search = query.size > 0 ? `?${query.toString()}` : '';
  return {
    method: route.method.toUpperCase(),
    path: `${path}${search}`,
    body: route.doc.requestBody ? body : undefined,
    // An upload's route reads nothing else of the body: without the file's text it gets an empty one (its own refusal).
    ...(route.upload ? { upload: upload ?? { mediaType: route.upload.mediaType, text: '' } } : {}),
    headers,
  };
}

/**
 * A 2xx answer is the tool's result (text and `structuredContent`, which the output schema
 * describes); any other is a tool error whose text is the API's error envelope. An error carries no
 * `structuredContent`: clients check it against the tool's output schema, which describes success.
 */
function toolResult(answer: ApiAnswer): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(answer.body ?? null) }];
  if (answer.status >= 200 && answer.status < 300)
    return { content, structuredContent: isObject(answer.body) ? answer.body : { value: answer.body ?? null } };
  const retryAfter = answer.headers['retry-after'];
  if (typeof retryAfter === 'string') content.push({ type: 'text', text: `Retry after ${retryAfter} s.` });
  return { isError: true, content };
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
