import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * `npm run mcp`: Switchboard's MCP server for desktop agents, over stdio. It relays every message
 * to the API's own MCP endpoint (`<SWITCHBOARD_URL>/mcp`) with SWITCHBOARD_API_KEY, so an agent on
 * stdio gets the very tools, resources and refusals of one on HTTP, enforced by the API.
 */
export const DEFAULT_SWITCHBOARD_URL = 'http://127.0.0.1:8080';

export interface StdioBridge {
  closed: Promise<void>;
}

export async function runMcpStdio(env: NodeJS.ProcessEnv = process.env): Promise<StdioBridge> {
  const key = env.SWITCHBOARD_API_KEY?.trim();
  if (!key) throw new Error('Set SWITCHBOARD_API_KEY to the API key the agent acts with (sk_test_... or sk_live_...)');
  const endpoint = mcpEndpoint(env.SWITCHBOARD_URL || DEFAULT_SWITCHBOARD_URL);
  const upstream = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
  const local = new StdioServerTransport();
  const initializeIds = new Set<string | number>();

  local.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') initializeIds.add(message.id);
    upstream.send(message).catch((err: unknown) => {
      const reason = `Switchboard at ${endpoint.href}: ${err instanceof Error ? err.message : String(err)}`;
      if (isJSONRPCRequest(message))
        void local.send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InternalError, message: reason } });
      else process.stderr.write(`${reason}\n`);
    });
  };
  upstream.onmessage = (message: JSONRPCMessage) => {
    // Later requests carry the negotiated version (MCP-Protocol-Version), as the SDK's own client sends it.
    if (isJSONRPCResultResponse(message) && initializeIds.delete(message.id)) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') upstream.setProtocolVersion(version);
    }
    void local.send(message);
  };
  upstream.onerror = (err) => process.stderr.write(`Switchboard at ${endpoint.href}: ${err.message}\n`);

  const closed = new Promise<void>((resolve) => {
    local.onclose = () => {
      void upstream.close().finally(resolve);
    };
  });
  await upstream.start();
  await local.start();
  // The agent closing our stdin is the end of the session (the transport itself only reads).
  process.stdin.once('end', () => void local.close());
  return { closed };
}

/** `<base>/mcp`, keeping any path the base has (an API behind a path prefix). */
export function mcpEndpoint(base: string): URL {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/mcp`;
  return url;
}

if (require.main === module) {
  runMcpStdio().then(
    (bridge) => bridge.closed.then(() => process.exit(0)),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(2);
    },
  );
}
