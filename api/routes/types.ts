import type { AppContext, AppDeps } from '../context';
import type { Scope } from '../../src/keys/scopes';

/**
 * How a route authenticates. This table (every RouteDef's `auth`) is the only place
 * the required scope of an endpoint is declared; the auth middleware reads nothing else.
 */
export type RouteAuth =
  | { kind: 'public' }
  | { kind: 'standard'; scope: Scope }
  | { kind: 'service' };

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

/** A fragment of an OpenAPI 3.1 operation object; request schemas in it drive validation. */
export interface OperationDoc {
  summary: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: 'query' | 'path' | 'header'; required?: boolean; description?: string; schema: object }>;
  requestBody?: { required: boolean; content: { 'application/json': { schema: object } } };
  responses: Record<string, { description: string; content?: { 'application/json': { schema: object } } }>;
}

export interface RouteDef {
  method: HttpMethod;
  /** OpenAPI path template, e.g. `/api/v1/lines/{id}`. */
  path: string;
  operationId: string;
  auth: RouteAuth;
  doc: OperationDoc;
  /** Serve the raw handler without JSON validation (documents, metrics). */
  handler: (ctx: AppContext, deps: AppDeps) => Promise<void>;
}

export function koaPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}
