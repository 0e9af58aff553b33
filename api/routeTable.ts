import type { AppContext, AppDeps } from './context';
import type { Scope } from '../src/domain/keys/scopes';
import type { Verb } from '../src/domain/keys/tiers';
import type { LimitName } from '../src/domain/limits/policies';

/**
 * How a route authenticates. This table (every RouteDef's `auth`) is the only place
 * the required scope of an endpoint is declared; the auth middleware reads nothing else.
 */
export type RouteAuth =
  | { kind: 'public' }
  /** `verb` is what an agent key's permission tier must allow (see src/domain/keys/tiers.ts). */
  | { kind: 'standard'; scope: Scope; verb: Verb }
  | { kind: 'service' }
  /**
   * Callbacks from the carrier: a signature over timestamp and raw body with
   * CARRIER_WEBHOOK_SECRET, checked before validation (api/carrierAuth.ts). Internal: such routes
   * are left out of the public OpenAPI document (docs/simulator.md describes them).
   */
  | {
      kind: 'carrier';
      /** A provider's own webhook signature instead of ours: `telnyx` is Ed25519 with TELNYX_PUBLIC_KEY. */
      scheme?: 'telnyx';
    }
  /**
   * Stripe's webhooks: `Stripe-Signature` over the raw body with the endpoint's signing secret of
   * each environment (api/stripeAuth.ts). Internal like carrier callbacks.
   */
  | { kind: 'stripe' };

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

/** Request body limit of a route that sets none: every body of the API but a line's (prompts) and the carrier's fits. */
export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

export interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  description?: string;
  schema: object;
  /** Filled in for path parameters from the schema (api/openapi/examples.ts) unless given. */
  example?: unknown;
}

/**
 * A path parameter. `x-not-found` is the answer when the value cannot name a resource (e.g. not a
 * UUID): the same 404 as an unknown id of that resource. Without it, 404 `not_found`.
 */
export interface PathParameter extends Parameter {
  in: 'path';
  'x-not-found'?: { code: string; message: string };
}

/** A fragment of an OpenAPI 3.1 operation object; request schemas in it drive validation. */
export interface OperationDoc {
  summary: string;
  description?: string;
  tags?: string[];
  parameters?: Array<Parameter | PathParameter>;
  requestBody?: { required: boolean; content: { 'application/json': { schema: object; example?: unknown } } };
  /** Bodies by media type; `example`s are filled in from the schemas (api/openapi/examples.ts) unless given. */
  responses: Record<string, { description: string; content?: Record<string, { schema: object; example?: unknown }> }>;
}

export interface RouteDef {
  method: HttpMethod;
  /** OpenAPI path template, e.g. `/api/v1/lines/{id}`. */
  path: string;
  operationId: string;
  auth: RouteAuth;
  /** Also served at these paths (e.g. `/api/v1/keys` beside `/v1/keys`), same handler and cache scope. */
  aliases?: string[];
  rateLimit?: LimitName;
  /** Largest request body accepted (413 above it); `DEFAULT_BODY_LIMIT_BYTES` when unset. `MAX_BODY_BYTES` caps every route. */
  bodyLimitBytes?: number;
  /**
   * The body is an upload of this media type, read as it streams in by its own reader (api/middleware/csvUpload.ts)
   * under `MAX_UPLOAD_BYTES` instead of `MAX_BODY_BYTES`; the document states it as the operation's request body.
   */
  upload?: { mediaType: 'text/csv'; description: string; example: string };
  /** Honour `Idempotency-Key`; `required` refuses requests without one (400 missing_idempotency_key). */
  idempotency?: { required: boolean };
  doc: OperationDoc;
  /**
   * Answers the request once authentication, the body limit, idempotency, validation against `doc` and the rate limit
   * have passed (api/app.ts): parse `ctx.state`, call the use case, map its result or refusal to `ctx.status`/`ctx.body`.
   */
  handler: (ctx: AppContext, deps: AppDeps) => Promise<void>;
}

export function koaPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}
