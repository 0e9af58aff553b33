import compose from 'koa-compose';
import type Koa from 'koa';
import { pathToRegexp } from 'path-to-regexp';
import type { AppState } from './context';
import { koaPath } from './routeTable';

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

interface Route {
  /** Upper-case methods served; a GET route also answers HEAD, as @koa/router's do. */
  methods: readonly string[];
  regexp: RegExp;
  paramNames: readonly string[];
  /** The Koa form of the path (`/api/v1/lines/:id`): the request's `_matchedRoute`, the label metrics and traces use. */
  path: string;
  /** The route's middleware, composed once when it is added. */
  run: Koa.Middleware<AppState>;
}

/**
 * The API's routes, picked by a map lookup on the path's leading segments (the resource), then matched against that
 * resource's few routes in the order they were added; the first that matches path and method answers.
 *
 * Matching is @koa/router's: the same path-to-regexp patterns and options (case-insensitive, trailing slash optional,
 * a GET also answering HEAD), parameters percent-decoded (left as sent when malformed), `ctx.params` and
 * `ctx._matchedRoute` set as it sets them. What it does not do is @koa/router's per-request work of building and
 * composing a chain from every layer that matched: a route's middleware is composed once, when it is added, and a
 * request runs it directly. Over a GET that was about a third of what Switchboard's chain cost beyond the least a
 * conforming GET does (issue 33; docs/performance.md).
 *
 * The resource of `/api/v1/<name>/…` is its first three segments, of any other path its first one. Every path a
 * request could match therefore has the request's resource; a route with a parameter among those segments would break
 * that, and is refused when added.
 */
export class ResourceRouters {
  private readonly resources = new Map<string, Route[]>();

  add(method: Method, openApiPath: string, ...middleware: Koa.Middleware<AppState>[]): void {
    const resource = resourceOf(openApiPath);
    if (resource.includes('{')) throw new Error(`${openApiPath}: a parameter in the segments that pick the resource (${resource})`);
    const upper = method.toUpperCase();
    const route: Route = { methods: upper === 'GET' ? ['HEAD', 'GET'] : [upper], ...routePattern(openApiPath), run: compose(middleware) };
    const routes = this.resources.get(resource);
    if (routes) routes.push(route);
    else this.resources.set(resource, [route]);
  }

  routes(): Koa.Middleware<AppState> {
    return (ctx, next) => {
      const routes = this.resources.get(resourceOf(ctx.path));
      if (!routes) return next();
      for (const route of routes) {
        if (!route.methods.includes(ctx.method)) continue;
        const match = route.regexp.exec(ctx.path);
        if (!match) continue;
        const params: Record<string, string> = {};
        for (let i = 0; i < route.paramNames.length; i += 1) {
          const value = match[i + 1];
          if (value) params[route.paramNames[i]!] = safeDecode(value);
        }
        const matched = ctx as typeof ctx & { params: Record<string, string>; _matchedRoute: string };
        matched.params = params;
        matched._matchedRoute = route.path;
        return route.run(ctx, next);
      }
      return next();
    };
  }
}

/** How a route's path matches a request's, as @koa/router builds it: case-insensitive, trailing slash optional. */
export function routePattern(openApiPath: string): Pick<Route, 'regexp' | 'paramNames' | 'path'> {
  const path = koaPath(openApiPath);
  const { regexp, keys } = pathToRegexp(path, { trailing: true });
  return { regexp, paramNames: keys.map((key) => key.name), path };
}

function safeDecode(value: string): string {
  // Most values (ids) have nothing to decode: decodeURIComponent's call costs more than this look (issue 33).
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** `/api/v1/lines/x/sms` → `api/v1/lines`; `/v1/keys/x` → `v1`; lower-cased, as matching is case-insensitive. */
function resourceOf(path: string): string {
  const lower = path.toLowerCase();
  const end = lower.indexOf('/', lower.startsWith('/api/v1/') ? '/api/v1/'.length : 1);
  return end < 0 ? lower.slice(1) : lower.slice(1, end);
}
