import crypto from 'node:crypto';
import type Koa from 'koa';
import type { AppState } from '../context';
import type { Logger } from '../../src/platform/logger';
import { errors } from '../errors';
import { httpRequestDuration } from '../metrics';
import { isDatabaseInputError, loggableError, toApiError } from './errorMapping';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A request's state as the middleware after this one finds it. Its logger is made on first use: most requests log
 * nothing at the default level, and a pino child costs a few µs (issue 33); a middleware may replace it with a child
 * carrying more bindings. A class, not a property defined on each request's object, which costs as much again.
 */
class RequestState {
  readonly #logger: Logger;
  #log: Logger | undefined;

  constructor(
    logger: Logger,
    readonly requestId: string,
  ) {
    this.#logger = logger;
  }

  get log(): Logger {
    return (this.#log ??= this.#logger.child({ request_id: this.requestId }));
  }

  set log(value: Logger) {
    this.#log = value;
  }
}

/**
 * Outermost middleware: assigns a request id (honouring a sane incoming `x-request-id`),
 * renders every failure as the error envelope, and writes one access-log line per request
 * (its fields are gathered only when `info` is logged). A draining process (`draining()` true)
 * answers with `Connection: close`, so a client sends its next request to another instance.
 */
export function requestContext(logger: Logger, draining?: () => boolean): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID_PATTERN.test(incoming) ? incoming : `req_${crypto.randomUUID()}`;
    ctx.state = new RequestState(logger, requestId) as AppState;
    ctx.set('x-request-id', requestId);
    try {
      await next();
      if ((ctx.body === undefined || ctx.body === null) && ctx.status === 404) throw errors.notFound('Route');
    } catch (err) {
      const apiError = toApiError(err);
      if (apiError.status >= 500) ctx.state.log.error({ err: loggableError(err) }, 'request failed');
      // A value that got past validation to the database: the caller's 4xx, and a check to add here.
      else if (isDatabaseInputError(err)) ctx.state.log.warn({ err: loggableError(err) }, 'database refused a request value');
      ctx.status = apiError.status;
      ctx.body = apiError.toBody();
      for (const [name, value] of Object.entries(apiError.headers)) ctx.set(name, value);
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const route = (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      httpRequestDuration.observe({ method: ctx.method, route: String(route), status: String(ctx.status) }, ms / 1000);
      if (draining?.()) ctx.set('Connection', 'close');
      if (logger.isLevelEnabled('info'))
        ctx.state.log.info(
          {
            method: ctx.method,
            path: ctx.state.loggedPath ?? ctx.path,
            route,
            status: ctx.status,
            ms: Math.round(ms * 10) / 10,
            workspace_id: ctx.state.principal?.workspaceId,
            key_id: ctx.state.principal?.key.id,
            error_code: ctx.status >= 400 ? (ctx.body as { error?: { code?: string } } | undefined)?.error?.code : undefined,
          },
          'request',
        );
    }
  };
}
