import Router from '@koa/router';
import type Koa from 'koa';
import type { AppState } from './context';
import { koaPath } from './routeTable';

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

/**
 * The API's routes, one @koa/router per resource, the resource picked by a map lookup on the path's leading segments:
 * a request is matched against its resource's few routes rather than all of them (@koa/router tests every route's
 * pattern on every request; over all 80 that was about 5 µs of a GET's CPU, issue 33). Within a resource, matching is
 * @koa/router's own as before (case-insensitive, trailing slash optional, the routes in the order they were added).
 *
 * The resource of `/api/v1/<name>/…` is its first three segments, of any other path its first one. Every path a
 * request could match therefore has the request's resource, so the answer is the one a single router gave; a route
 * with a parameter among those segments would break that, and is refused when added.
 */
export class ResourceRouters {
  private readonly routers = new Map<string, Router<AppState>>();

  add(method: Method, openApiPath: string, ...middleware: Koa.Middleware<AppState>[]): void {
    const resource = resourceOf(openApiPath);
    if (resource.includes('{')) throw new Error(`${openApiPath}: a parameter in the segments that pick the resource (${resource})`);
    let router = this.routers.get(resource);
    if (!router) this.routers.set(resource, (router = new Router<AppState>()));
    router[method](koaPath(openApiPath), ...middleware);
  }

  routes(): Koa.Middleware<AppState> {
    const dispatchers = new Map([...this.routers].map(([resource, router]) => [resource, router.routes()]));
    return (ctx, next) => {
      const dispatch = dispatchers.get(resourceOf(ctx.path));
      return dispatch ? dispatch(ctx as Parameters<typeof dispatch>[0], next) : next();
    };
  }
}

/** `/api/v1/lines/x/sms` → `api/v1/lines`; `/v1/keys/x` → `v1`; lower-cased, as matching is case-insensitive. */
function resourceOf(path: string): string {
  const lower = path.toLowerCase();
  const end = lower.indexOf('/', lower.startsWith('/api/v1/') ? '/api/v1/'.length : 1);
  return end < 0 ? lower.slice(1) : lower.slice(1, end);
}
