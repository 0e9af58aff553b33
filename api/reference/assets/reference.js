/* global Scalar, document */
// Mounts the API reference (Scalar's standalone bundle, loaded just before) from the document this
// API serves. A file of its own: the page's CSP admits no inline script.
const root = document.getElementById('reference');
Scalar.createApiReference(root, {
  url: root.dataset.url,
  // Nothing is fetched from elsewhere: no web fonts, no telemetry, no proxy, no hosted services.
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: 'never',
  // Scalar's hosted AI agent and MCP generator would leave this origin (and the CSP refuses them).
  agent: { disabled: true },
  mcp: { disabled: true },
  hideClientButton: false,
  defaultOpenAllTags: true,
});
