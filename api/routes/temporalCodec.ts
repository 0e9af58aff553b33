import Router from '@koa/router';
import type Koa from 'koa';
import { ValueError, type Payload, type PayloadCodec } from '@temporalio/common';
import type { AppDeps, AppState } from '../context';
import { ApiError, errors } from '../errors';
import { jsonBody } from '../middleware/jsonBody';
import { sameSecret } from '../../src/platform/crypto/sameSecret';
import { payloadCodecOf } from '../../src/platform/temporal/client';

/**
 * The codec endpoint (security review L10; docs/decisions/operations.md "Encrypted Temporal payloads"): Temporal's
 * Codec Server protocol (docs.temporal.io/codec-server: `POST /encode` and `POST /decode`, each taking
 * and answering `{"payloads": [{"metadata": {name: base64}, "data": base64}]}`, the namespace in
 * `X-Namespace`), so an operator's Temporal UI and `temporal` CLI show payloads decrypted with the
 * deployment's TEMPORAL_PAYLOAD_KEY. Outside /api: it is for operators, not tenants.
 *
 * Access: TEMPORAL_CODEC_TOKEN, compared in constant time, as `Authorization: Bearer <token>` (the CLI:
 * `--codec-endpoint <API>/temporal-codec --codec-auth "Bearer <token>"`) or as the endpoint's last path
 * segment (`<API>/temporal-codec/<token>`): the Temporal UI sends no header of its own choosing (only an
 * OIDC user's token), so the UI's configured endpoint carries it. Unset, the endpoint does not exist
 * (404). Browsers may call it from TEMPORAL_CODEC_CORS_ORIGINS only.
 */
export const CODEC_PREFIX = '/temporal-codec';
/** A gRPC message's default ceiling (4 MiB): no page of history the UI decodes is larger. */
const CODEC_BODY_LIMIT_BYTES = 4 * 1024 * 1024;
const MAX_PAYLOADS = 10_000;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function temporalCodecRouter(deps: AppDeps): Router<AppState> {
  const { config } = deps;
  const router = new Router<AppState>({ prefix: CODEC_PREFIX });
  let codec: PayloadCodec | undefined;
  const codecOf = () => (codec ??= payloadCodecOf(config));
  const served: Koa.Middleware<AppState> = async (ctx, next) => {
    // The path may hold the token: the access log names the route only.
    ctx.state.loggedPath = `${CODEC_PREFIX}/${ctx.path.endsWith('/encode') ? 'encode' : ctx.path.endsWith('/decode') ? 'decode' : '…'}`;
    if (!config.temporalCodecToken) throw errors.notFound('Route');
    allowOrigin(ctx, config.temporalCodecCorsOrigins);
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
      ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Namespace');
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    await next();
  };
  const authorized = (fromPath: boolean): Koa.Middleware<AppState> => {
    return async (ctx, next) => {
      const presented = fromPath ? ctx.params.token : /^\s*Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
      if (!sameSecret(presented ?? '', config.temporalCodecToken!)) {
        ctx.state.log.warn({ via: fromPath ? 'path' : 'header' }, 'codec endpoint: refused a request without the codec token');
        throw new ApiError(401, 'unauthorized', 'The codec endpoint needs Authorization: Bearer <TEMPORAL_CODEC_TOKEN>');
      }
      const namespace = ctx.get('x-namespace');
      if (namespace && namespace !== config.temporalNamespace)
        throw errors.forbidden(`This codec serves the namespace ${config.temporalNamespace}, not ${namespace}`);
      await next();
    };
  };
  const run = (direction: 'encode' | 'decode'): Koa.Middleware<AppState> => {
    return async (ctx) => {
      const payloads = payloadsOf(ctx.state.body);
      let result: Payload[];
      try {
        result = await codecOf()[direction](payloads);
      } catch (err) {
        if (!(err instanceof ValueError)) throw err;
        throw new ApiError(400, 'invalid_payload', `A payload could not be ${direction}d: ${err.message}`);
      }
      ctx.state.log.info({ direction, payloads: payloads.length, namespace: config.temporalNamespace }, 'codec endpoint used');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { payloads: result.map(toJson) };
    };
  };
  const body = jsonBody(CODEC_BODY_LIMIT_BYTES);
  for (const direction of ['encode', 'decode'] as const) {
    router.options(`/${direction}`, served);
    router.options(`/:token/${direction}`, served);
    router.post(`/${direction}`, served, authorized(false), body, run(direction));
    router.post(`/:token/${direction}`, served, authorized(true), body, run(direction));
  }
  router.all('/{*rest}', served, () => {
    throw errors.notFound('Route');
  });
  return router;
}

function allowOrigin(ctx: Koa.Context, origins: readonly string[]): void {
  ctx.vary('Origin');
  const origin = ctx.get('origin');
  if (!origin || !origins.includes(origin)) return;
  ctx.set('Access-Control-Allow-Origin', origin);
  // The UI's "include cross-origin credentials" setting needs it; the token, not a cookie, is what authorizes.
  ctx.set('Access-Control-Allow-Credentials', 'true');
}

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

function payloadsOf(body: unknown): Payload[] {
  const list = (body as { payloads?: unknown } | undefined)?.payloads;
  if (!Array.isArray(list) || list.length > MAX_PAYLOADS)
    throw errors.validation([{ field: 'payloads', message: `An array of at most ${MAX_PAYLOADS} payloads` }]);
  return list.map((item: unknown, i) => {
    const field = `payloads[${i}]`;
    const { metadata = {}, data = '' } = (item ?? {}) as JsonPayload;
    const strings = typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? Object.entries(metadata) : undefined;
    if (typeof item !== 'object' || item === null || !strings || typeof data !== 'string')
      throw errors.validation([{ field, message: 'A payload is {"metadata": {name: base64}, "data": base64}' }]);
    for (const [name, value] of [...strings, ['data', data]])
      if (typeof value !== 'string' || !BASE64.test(value))
        throw errors.validation([{ field: `${field}.${name === 'data' ? 'data' : `metadata.${name}`}`, message: 'Must be base64' }]);
    return {
      metadata: Object.fromEntries(strings.map(([name, value]) => [name, Buffer.from(value, 'base64')])),
      data: Buffer.from(data, 'base64'),
    };
  });
}

function toJson(payload: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([name, value]) => [name, Buffer.from(value ?? []).toString('base64')]),
    ),
    data: Buffer.from(payload.data ?? []).toString('base64'),
  };
}
