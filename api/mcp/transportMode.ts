import type http from 'node:http';
import type { Tool } from './tools';

/**
 * How one POST /mcp is answered. JSON, unless it calls a tool that streams its progress
 * (follow_call) and the client accepts `text/event-stream`: then the answer is an SSE stream that
 * carries the tool's notifications before its result.
 */
export function answersWithJson(body: unknown, accept: string, tools: ReadonlyMap<string, Tool>): boolean {
  if (!accept.includes('text/event-stream')) return true;
  const messages = Array.isArray(body) ? body : [body];
  return !messages.some((message) => {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
    return method === 'tools/call' && typeof params?.name === 'string' && tools.get(params.name)?.streams === true;
  });
}

/**
 * A client that accepts only `application/json` is answered in JSON, which is all it asked for: the
 * SDK's transport insists on both types (the MCP specification's "MUST" for clients), so the
 * request is handed to it as if it had named `text/event-stream` too. Only for JSON answers.
 */
export function acceptJsonOnlyClients(req: http.IncomingMessage): void {
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || accept.includes('text/event-stream')) return;
  const both = `${accept}, text/event-stream`;
  req.headers.accept = both;
  // The transport reads the raw header list (@hono/node-server).
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].toLowerCase() === 'accept') req.rawHeaders[i + 1] = both;
}
