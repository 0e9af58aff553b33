/** The first JSON-RPC request an MCP host sends to /mcp (`initialize`), as a raw body, with the headers its transport sends. */
export function mcpInitialize(clientName: string) {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: clientName, version: '1' } },
  };
}

/** What the Streamable HTTP transport accepts back: a JSON answer or an event stream. */
export const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };
