import crypto from 'node:crypto';
import type { EventEmitter } from 'node:events';
import http from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import getRawBody from 'raw-body';
import { badRequest, bearerMatches } from './http';

/**
 * The card processor simulator: a stand-in for a real processor (Stripe and the like) with
 * the same shape of charge API, plus a control API that tests and the demo use to make it
 * decline, fail or hang. Mounted in the same process as the carrier simulator; its state is
 * in memory on purpose. See docs/simulator.md ("Card processor").
 */
export type ProcessorFaultMode = 'normal' | 'decline' | 'error' | 'timeout' | 'drop';

export interface ProcessorFault {
  mode: ProcessorFaultMode;
  /** The decline code answered while `mode` is `decline`. */
  declineCode: string;
  /** How many more charge requests the fault applies to; null = until reset or changed. */
  remaining: number | null;
  /** How long `timeout` holds a request before carrying on. */
  holdMs: number;
}

export interface ChargeRecord {
  id: string;
  idempotency_key: string;
  amount_cents: number;
  currency: 'usd';
  payment_method_token: string;
  status: 'succeeded' | 'declined';
  decline_code: string | null;
  created_at: string;
}

const NORMAL: ProcessorFault = { mode: 'normal', declineCode: 'card_declined', remaining: null, holdMs: 30_000 };

/** How a held request ended: its hold ran out (or the client hung up), or reset/close let it go. */
type HoldOutcome = 'elapsed' | 'released';

export class CardProcessorSimulatorState {
  /** Charges by idempotency key, succeeded and declined alike (a replay answers what the first request got). */
  readonly charges = new Map<string, ChargeRecord>();
  /** Every authenticated POST /processor/v1/charges request, whatever it was answered. */
  attempts = 0;
  fault: ProcessorFault = { ...NORMAL };
  /** Payment method tokens that always decline, with their decline code. */
  readonly decliningTokens = new Map<string, string>();
  private held = new Set<(outcome: HoldOutcome) => void>();

  setFault(fault: Partial<ProcessorFault> & { mode: ProcessorFaultMode }): ProcessorFault {
    this.fault = fault.mode === 'normal' ? { ...NORMAL } : { ...NORMAL, ...fault };
    return this.fault;
  }

  /**
   * If the current fault is one of `modes`, uses up one application of it and returns it;
   * a counted fault reverts to normal once used up.
   */
  takeFault(modes: readonly ProcessorFaultMode[]): ProcessorFault | null {
    const fault = this.fault;
    if (fault.mode === 'normal' || !modes.includes(fault.mode)) return null;
    if (fault.remaining !== null) {
      fault.remaining -= 1;
      if (fault.remaining <= 0) this.fault = { ...NORMAL };
    }
    return fault;
  }

  /**
   * Holds a request for `ms`. Ends early, as 'elapsed', if `connection` closes (the client
   * gave up), or as 'released' on reset/close.
   */
  hold(ms: number, connection?: EventEmitter): Promise<HoldOutcome> {
    return new Promise((resolve) => {
      let done = false;
      const finish = (outcome: HoldOutcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        connection?.off('close', onClose);
        this.held.delete(finish);
        resolve(outcome);
      };
      const onClose = () => finish('elapsed');
      const timer = setTimeout(() => finish('elapsed'), ms);
      connection?.once('close', onClose);
      this.held.add(finish);
    });
  }

  releaseHeld(): number {
    const waiting = [...this.held];
    waiting.forEach((finish) => finish('released'));
    return waiting.length;
  }

  get heldCount(): number {
    return this.held.size;
  }

  record(request: { idempotencyKey: string; amountCents: number; paymentMethodToken: string }, declineCode: string | null): ChargeRecord {
    const record: ChargeRecord = {
      id: `ch_${crypto.randomBytes(12).toString('hex')}`,
      idempotency_key: request.idempotencyKey,
      amount_cents: request.amountCents,
      currency: 'usd',
      payment_method_token: request.paymentMethodToken,
      status: declineCode === null ? 'succeeded' : 'declined',
      decline_code: declineCode,
      created_at: new Date().toISOString(),
    };
    this.charges.set(request.idempotencyKey, record);
    return record;
  }

  reset(): void {
    this.releaseHeld();
    this.charges.clear();
    this.decliningTokens.clear();
    this.attempts = 0;
    this.fault = { ...NORMAL };
  }
}

type JsonBody = { ok: true; body: Record<string, unknown> } | { ok: false };

async function readJsonObject(ctx: Koa.Context): Promise<JsonBody> {
  const raw = await getRawBody(ctx.req, { limit: 64 * 1024 });
  if (raw.length === 0) return { ok: true, body: {} };
  try {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return { ok: true, body: parsed as Record<string, unknown> };
  } catch {
    // answered below
  }
  ctx.status = 400;
  ctx.body = { error: 'body must be a JSON object' };
  return { ok: false };
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

function answerCharge(ctx: Koa.Context, record: ChargeRecord): void {
  if (record.status === 'declined') {
    ctx.status = 402;
    ctx.body = { error: 'card_declined', decline_code: record.decline_code };
    return;
  }
  ctx.status = 201;
  ctx.body = { id: record.id, status: record.status, amount_cents: record.amount_cents, payment_method_token: record.payment_method_token };
}

/** Charges (or replays) one request and sets the answer on `ctx`. */
function processCharge(
  ctx: Koa.Context,
  state: CardProcessorSimulatorState,
  request: { idempotencyKey: string; amountCents: number; paymentMethodToken: string },
): void {
  const existing = state.charges.get(request.idempotencyKey);
  if (existing) {
    if (existing.amount_cents !== request.amountCents || existing.payment_method_token !== request.paymentMethodToken) {
      ctx.status = 409;
      ctx.body = { error: 'idempotency_key_reused' };
      return;
    }
    return answerCharge(ctx, existing);
  }
  const tokenDecline = state.decliningTokens.get(request.paymentMethodToken);
  const declineCode = tokenDecline ?? state.takeFault(['decline'])?.declineCode ?? null;
  answerCharge(ctx, state.record(request, declineCode));
}

/** Mounts the processor API (`/processor/v1/...`) and its control API (`/control/processor/...`). */
export function cardProcessorRoutes(router: Router, state: CardProcessorSimulatorState, apiKey: string): void {
  const requireProcessorAuth: Koa.Middleware = async (ctx, next) => {
    if (!bearerMatches(ctx.get('authorization'), apiKey)) {
      ctx.status = 401;
      ctx.body = { error: 'invalid processor credentials' };
      return;
    }
    await next();
  };

  // Processor API: what a Switchboard adapter calls.
  router.post('/processor/v1/charges', requireProcessorAuth, async (ctx) => {
    state.attempts += 1;
    const parsed = await readJsonObject(ctx);
    if (!parsed.ok) return;
    const body = parsed.body;
    if (!isNonEmptyString(body.payment_method_token)) return badRequest(ctx, 'payment_method_token is required');
    if (!isPositiveInteger(body.amount_cents)) return badRequest(ctx, 'amount_cents must be a positive integer');
    if (body.currency !== 'usd') return badRequest(ctx, 'currency must be usd');
    if (!isNonEmptyString(body.idempotency_key)) return badRequest(ctx, 'idempotency_key is required');
    const request = { idempotencyKey: body.idempotency_key, amountCents: body.amount_cents, paymentMethodToken: body.payment_method_token };

    // Outages come before anything is looked up, replays included.
    const outage = state.takeFault(['error', 'timeout', 'drop']);
    if (outage?.mode === 'error') {
      ctx.status = 503;
      ctx.body = { error: 'processor temporarily unavailable' };
      return;
    }
    if (outage?.mode === 'timeout') {
      // The answer is lost, not the work: once the hold ends the charge goes through as usual.
      if ((await state.hold(outage.holdMs, ctx.res)) === 'released') {
        ctx.status = 503;
        ctx.body = { error: 'processor reset' };
        ctx.set('connection', 'close'); // so a closing server is not kept waiting on this keep-alive socket
        return;
      }
    }

    processCharge(ctx, state, request);
    if (outage?.mode === 'drop') {
      // The charge is made (or replayed); its answer never reaches the caller.
      ctx.respond = false;
      ctx.req.socket.destroy();
    }
  });

  // What became of the charge requested under an idempotency key (200 the charge, 404 none).
  router.get('/processor/v1/charges/lookup', requireProcessorAuth, async (ctx) => {
    const key = ctx.query.idempotency_key;
    if (!isNonEmptyString(key)) return badRequest(ctx, 'idempotency_key is required');
    const record = state.charges.get(key);
    if (!record) {
      ctx.status = 404;
      ctx.body = { error: 'no_such_charge' };
      return;
    }
    ctx.body = {
      id: record.id,
      status: record.status,
      decline_code: record.decline_code,
      amount_cents: record.amount_cents,
      payment_method_token: record.payment_method_token,
    };
  });

  // Control API: what tests and the demo call to steer the simulated processor.
  router.get('/control/processor/charges', async (ctx) => {
    ctx.body = { charges: [...state.charges.values()], attempts: state.attempts, held: state.heldCount };
  });
  router.post('/control/processor/faults', async (ctx) => {
    const parsed = await readJsonObject(ctx);
    if (!parsed.ok) return;
    const { mode, decline_code: declineCode, count, hold_ms: holdMs } = parsed.body;
    if (mode !== 'normal' && mode !== 'decline' && mode !== 'error' && mode !== 'timeout' && mode !== 'drop')
      return badRequest(ctx, 'mode must be normal, decline, error, timeout or drop');
    if (declineCode !== undefined && !isNonEmptyString(declineCode)) return badRequest(ctx, 'decline_code must be a non-empty string');
    if (count !== undefined && !isPositiveInteger(count)) return badRequest(ctx, 'count must be a positive integer');
    if (holdMs !== undefined && !(typeof holdMs === 'number' && Number.isSafeInteger(holdMs) && holdMs >= 0))
      return badRequest(ctx, 'hold_ms must be a non-negative integer');
    const fault = state.setFault({
      mode,
      declineCode: declineCode ?? NORMAL.declineCode,
      remaining: count ?? null,
      holdMs: holdMs ?? NORMAL.holdMs,
    });
    ctx.body = { mode: fault.mode, decline_code: fault.declineCode, remaining: fault.remaining, hold_ms: fault.holdMs };
  });
  router.post('/control/processor/declining-tokens', async (ctx) => {
    const parsed = await readJsonObject(ctx);
    if (!parsed.ok) return;
    const { payment_method_token: token, decline_code: declineCode } = parsed.body;
    if (!isNonEmptyString(token)) return badRequest(ctx, 'payment_method_token is required');
    if (declineCode !== undefined && !isNonEmptyString(declineCode)) return badRequest(ctx, 'decline_code must be a non-empty string');
    state.decliningTokens.set(token, declineCode ?? NORMAL.declineCode);
    ctx.body = { payment_method_token: token, decline_code: state.decliningTokens.get(token) };
  });
  router.post('/control/processor/reset', async (ctx) => {
    const released = state.heldCount;
    state.reset();
    ctx.body = { reset: true, released };
  });
}

/**
 * A processor on its own port, with only the processor and its control API: a second,
 * distinct processor (tests use one for the test environment beside the live one).
 */
export async function startCardProcessorSimulator(options: {
  host: string;
  port: number;
  secret: string;
}): Promise<{ server: http.Server; state: CardProcessorSimulatorState; url: string }> {
  const state = new CardProcessorSimulatorState();
  const router = new Router();
  cardProcessorRoutes(router, state, options.secret);
  const app = new Koa();
  app.silent = true;
  app.use(router.routes()).use(router.allowedMethods());
  const server = http.createServer(app.callback());
  const close = server.close.bind(server);
  server.close = ((callback?: (err?: Error) => void) => {
    state.releaseHeld();
    return close(callback);
  }) as typeof server.close;
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return { server, state, url: `http://${options.host}:${port}` };
}
