import type { AppContext, AppDeps } from '../context';
import { errorResponse, jsonRequestBody } from '../openapi/schemas';
import type { OperationDoc, RouteAuth, RouteDef } from '../routeTable';

/**
 * A provider's signed callback (the carrier's `/carrier/*`, Stripe's `/payments/stripe/webhook`): a POST
 * verified by its `auth` before validation, internal (tag `internal`, so left out of the public OpenAPI
 * document), its JSON body validated against `body` and handed to `receive`. The one shape of
 * api/routes/carrier/{events,messages,telnyx}.ts and api/routes/processor/stripe.ts.
 */
export function providerCallbackRoute<Body>(route: {
  path: string;
  operationId: string;
  auth: Extract<RouteAuth, { kind: 'carrier' | 'stripe' }>;
  /** What a body of the provider's largest event needs. */
  bodyLimitBytes: number;
  summary: string;
  /** JSON schema of the body (validated after the signature). */
  body: object;
  /** The 200 answer, described. */
  received: string;
  /** What the signature check refuses (the 401 answer). */
  unauthorized?: string;
  /** Answers beyond 200 and 401. */
  refusals?: OperationDoc['responses'];
  receive: (ctx: AppContext, deps: AppDeps, body: Body) => Promise<void>;
}): RouteDef {
  return {
    method: 'post',
    path: route.path,
    operationId: route.operationId,
    bodyLimitBytes: route.bodyLimitBytes,
    auth: route.auth,
    doc: {
      summary: route.summary,
      tags: ['internal'],
      requestBody: jsonRequestBody(route.body),
      responses: {
        '200': { description: route.received },
        '401': errorResponse(route.unauthorized ?? '`unauthorized`: missing, wrong, stale or replayed signature'),
        ...route.refusals,
      },
    },
    handler: (ctx, deps) => route.receive(ctx, deps, ctx.state.body as Body),
  };
}
