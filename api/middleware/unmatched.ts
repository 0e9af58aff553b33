import type Koa from 'koa';
import { ApiError, errors } from '../errors';
import type { RouteDef } from '../routeTable';

/**
 * What a request no route serves gets: 405 `method_not_allowed` with `Allow` when the path is
 * served under other methods, 404 `not_found` when the path is unknown. Never 501, whatever the
 * method (TRACE, PUT, COPY, ...). The table is built from the route table, so a new route is
 * covered as it is added.
 */
export type AllowedMethods = (path: string) => string[] | undefined;

export function allowedMethodsOf(routes: readonly RouteDef[]): AllowedMethods {
  const templates = routes.flatMap((route) =>
    [route.path, ...(route.aliases ?? [])].map((path) => ({
      // As the router matches: a `{param}` is one non-empty segment, case-insensitive, a trailing slash allowed.
      pattern: new RegExp(
        `^${path
          .split(/\{[^}]+\}/)
          .map(escapeRegExp)
          .join('[^/]+')}/?$`,
        'i',
      ),
      method: route.method.toUpperCase(),
    })),
  );
  return (path) => {
    const methods = new Set(templates.filter((t) => t.pattern.test(path)).map((t) => t.method));
    if (methods.size === 0) return undefined;
    if (methods.has('GET')) methods.add('HEAD');
    // Every path answers CORS preflights (see cors.ts).
    methods.add('OPTIONS');
    return [...methods].sort();
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function methodNotAllowed(method: string, allowed: string[]): ApiError {
  return new ApiError(405, 'method_not_allowed', `This path does not support ${method}; it supports ${allowed.join(', ')}`, undefined, {
    Allow: allowed.join(', '),
  });
}

/** The last middleware: reached only by requests no route took. */
export function unmatchedRequest(allowedMethods: AllowedMethods): Koa.Middleware {
  return async (ctx) => {
    const allowed = allowedMethods(ctx.path);
    if (allowed) throw methodNotAllowed(ctx.method, allowed);
    throw errors.notFound('Route');
  };
}
