import YAML from 'yaml';
import { DEFAULT_BODY_LIMIT_BYTES, type OperationDoc, type RouteDef } from '../routeTable';
import { MAX_JSON_DEPTH } from '../middleware/jsonBody';
import { campaignWebhooks } from './campaignRecords';
import { withExamples } from './examples';
import { NOT_BLANK_PATTERN } from './fields';
import { boundIntegers, forbidNul } from './formats';
import { componentSchemas, errorResponse } from './schemas';

/**
 * Assembles the OpenAPI 3.1 document from the route table. The same operation objects
 * drive request validation, so what the document says is what the server enforces.
 */
export function buildOpenApiDocument(routes: readonly RouteDef[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    // Carrier callbacks and Stripe's webhooks are internal (signed by the provider, not called by
    // customers): documented in docs/simulator.md and docs/carriers.md, not offered to API clients.
    if (route.auth.kind === 'carrier' || route.auth.kind === 'stripe') continue;
    const operation: Record<string, unknown> = {
      operationId: route.operationId,
      ...withExamples(boundIntegers(withRequestRules(withStandardErrors(route)))),
    };
    if (route.auth.kind === 'public') operation.security = [];
    else if (route.auth.kind === 'service') operation.security = [{ serviceKey: [] }];
    else {
      operation['x-required-scope'] = route.auth.scope;
      operation['x-agent-verb'] = route.auth.verb;
    }
    if (route.rateLimit) operation['x-rate-limit'] = route.rateLimit;
    if (route.doc.requestBody) operation['x-body-limit-bytes'] = route.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
    if (route.upload) {
      // An upload is not JSON: its own reader checks it (api/middleware/csvUpload.ts), so the document only states its type.
      const { mediaType, description, example } = route.upload;
      operation.requestBody = { required: true, description, content: { [mediaType]: { schema: { type: 'string' }, example } } };
      operation['x-body-limit-bytes'] = route.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
    }
    if (route.idempotency) {
      operation.parameters = [
        ...((operation.parameters as object[] | undefined) ?? []),
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: route.idempotency.required,
          description: 'Replays the first response for 12 hours; the same key with a different request is 409 idempotency_key_reused.',
          schema: { type: 'string', maxLength: 255, pattern: NOT_BLANK_PATTERN },
        },
      ];
    }
    (paths[route.path] ??= {})[route.method] = operation;
    for (const alias of route.aliases ?? []) {
      (paths[alias] ??= {})[route.method] = {
        ...operation,
        operationId: `${route.operationId}ViaApiV1`,
        description: `Alias of ${route.path}.`,
      };
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard API',
      version,
      description:
        'Telephony for AI agents: lines, calls, SMS, consent, keys and billing. Errors use one envelope: ' +
        '`{"error": {"code", "message", "details"?}}`. Decisions where the interface is silent are recorded in docs/decisions/README.md. ' +
        `Request bodies are JSON of at most ${DEFAULT_BODY_LIMIT_BYTES / 1024} KiB unless an operation's \`x-body-limit-bytes\` says more (413 above), nested at most ${MAX_JSON_DEPTH} levels. ` +
        'Integers are safe integers (±2^53-1); ids are canonical UUIDs; offsets go to 100000. ' +
        'Agents can use these operations as MCP tools: Streamable HTTP at `POST /mcp` (JSON-RPC, stateless) with the same bearer key, ' +
        'each tool answered by the operation it names, under the same scopes, tier, line binding, caps, idempotency and rate limits. ' +
        '`/mcp` also takes OAuth 2.1 access tokens (MCP authorization 2025-06-18): a 401 names `/.well-known/oauth-protected-resource/mcp` (RFC 9728), ' +
        'whose authorization server (`/.well-known/oauth-authorization-server`, RFC 8414) registers public clients at `POST /oauth/register` (RFC 7591), ' +
        'authorizes at `GET /oauth/authorize` (code with PKCE S256, `resource` per RFC 8707; the person signs in to the portal and consents) and issues ' +
        'tokens at `POST /oauth/token` (refresh tokens rotate) and revokes at `POST /oauth/revoke`; a token acts as the delegated key its consent minted.',
    },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }],
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: '`sk_test_...` or `sk_live_...`; the workspace and environment come from the key.',
        },
        serviceKey: {
          type: 'http',
          scheme: 'bearer',
          description: '`sk_svc_test_...` or `sk_svc_live_...`; valid only on the keys plane.',
        },
      },
      schemas: boundIntegers(requestComponentRules(componentSchemas)),
    },
    paths,
    // What Switchboard POSTs to customers beyond the spec's call events (OpenAPI 3.1 `webhooks`): the campaigns' events.
    webhooks: campaignWebhooks,
  };
}

/** The rules every request schema carries (formats.ts): on the operation's parameters and body. */
export function withRequestRules(doc: OperationDoc): OperationDoc {
  return {
    ...doc,
    ...(doc.parameters ? { parameters: forbidNul(doc.parameters) } : {}),
    ...(doc.requestBody ? { requestBody: forbidNul(doc.requestBody) } : {}),
  };
}

/** Component schemas that requests use (`…Request`, `Grant`, `Tool`) carry the request rules too; the records the API returns do not need them. */
function requestComponentRules(schemas: Record<string, object>): Record<string, object> {
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [name, /Request$|^Grant$|^Tool$/.test(name) ? forbidNul(schema) : schema]),
  );
}

function withStandardErrors(route: RouteDef): OperationDoc {
  const responses = { ...route.doc.responses };
  if (route.auth.kind !== 'public') {
    responses['401'] ??= errorResponse(
      '`unauthorized` (no Authorization header) or `invalid_api_key` (malformed, unknown, revoked or expired, or a key of the other plane)',
    );
  }
  if (route.auth.kind === 'standard')
    responses['403'] ??= errorResponse(
      '`forbidden` (the key lacks the required scope) or `agent_permission_denied` (its tier lacks the verb)',
    );
  if (route.doc.requestBody || route.doc.parameters?.some((p) => p.in === 'query')) {
    responses['422'] ??= errorResponse('`validation_error` with one detail per invalid field');
  }
  const badRequests: string[] = [];
  if (route.idempotency) {
    responses['409'] ??= errorResponse('`idempotency_key_reused` or `idempotency_in_progress` (with `Retry-After: 1`)');
    badRequests.push(
      route.idempotency.required ? '`missing_idempotency_key` or `duplicate_idempotency_key_header`' : '`duplicate_idempotency_key_header`',
    );
  }
  if (route.doc.requestBody) {
    badRequests.push(`\`invalid_json\` (not JSON, or nested deeper than ${MAX_JSON_DEPTH} levels)`);
    responses['413'] ??= errorResponse('`payload_too_large`: the body exceeds `x-body-limit-bytes`');
  }
  if (route.upload) {
    responses['413'] ??= errorResponse('`payload_too_large`: the body exceeds `x-body-limit-bytes`');
    responses['415'] ??= errorResponse(`\`unsupported_media_type\`: the body is not \`${route.upload.mediaType}\``);
  }
  if (badRequests.length > 0) responses['400'] ??= errorResponse(badRequests.join('; '));
  if (route.rateLimit) responses['429'] ??= errorResponse('`rate_limited`, with `Retry-After` in seconds');
  responses['500'] ??= errorResponse('`internal_error`');
  return { ...route.doc, responses };
}

export function toYaml(document: Record<string, unknown>): string {
  return YAML.stringify(document, { aliasDuplicateObjects: false });
}

/** Replaces local `$ref`s with the schemas they name, so ajv compiles a self-contained schema. */
export function inlineRefs<T>(value: T, schemas: Record<string, object> = componentSchemas): T {
  if (Array.isArray(value)) return value.map((item) => inlineRefs(item, schemas)) as T;
  if (value && typeof value === 'object') {
    const ref = (value as { $ref?: string }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
      const target = schemas[ref.slice('#/components/schemas/'.length)];
      if (!target) throw new Error(`unknown schema ${ref}`);
      return inlineRefs(target, schemas) as T;
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inlineRefs(v, schemas)])) as T;
  }
  return value;
}
