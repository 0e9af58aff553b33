import crypto from 'node:crypto';
import http from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import getRawBody from 'raw-body';
import { CardProcessorSimulatorState, cardProcessorRoutes } from './cardProcessorSimulator';

/**
 * The carrier simulator: a stand-in for a real carrier (Twilio, Telnyx) with the same
 * shape of API, plus a control API that tests and the demo use to steer it.
 * Its state is in memory on purpose: it plays an external system, not part of Switchboard.
 * See docs/simulator.md.
 */
type ProvisionFault = 'normal' | 'hold' | 'reject' | 'error';

interface NumberRecord {
  idempotency_key: string;
  phone_number: string;
  number_ref: string;
  country: string;
  status: 'active' | 'released';
  /** How many provisioning requests carried this idempotency key. */
  requests: number;
  allocated_at: string;
  released_at: string | null;
}

const AREA_CODES = ['202', '212', '312', '415', '512', '617', '646', '702', '718', '917'];

export class CarrierSimulatorState {
  readonly numbers = new Map<string, NumberRecord>();
  provisionFault: ProvisionFault = 'normal';
  private held: Array<() => void> = [];

  private randomNumber(): string {
    for (;;) {
      const area = AREA_CODES[crypto.randomInt(AREA_CODES.length)];
      // 555-0100..0199 is the reserved never-connects range; hand out 555-2000..9999 only.
      const line = 2000 + crypto.randomInt(8000);
      const candidate = `+1${area}555${line}`;
      if (![...this.numbers.values()].some((n) => n.phone_number === candidate && n.status === 'active')) return candidate;
    }
  }

  /** Blocks until the control API releases held requests (fault `hold`). */
  waitWhileHeld(): Promise<void> {
    if (this.provisionFault !== 'hold') return Promise.resolve();
    return new Promise((resolve) => this.held.push(resolve));
  }

  releaseHeld(): number {
    const waiting = this.held;
    this.held = [];
    waiting.forEach((resolve) => resolve());
    return waiting.length;
  }

  get heldCount(): number {
    return this.held.length;
  }

  provision(idempotencyKey: string, country: string): NumberRecord {
    const existing = this.numbers.get(idempotencyKey);
    if (existing) {
      existing.requests += 1;
      return existing;
    }
    const record: NumberRecord = {
      idempotency_key: idempotencyKey,
      phone_number: this.randomNumber(),
      number_ref: `PN${crypto.randomBytes(12).toString('hex')}`,
      country,
      status: 'active',
      requests: 1,
      allocated_at: new Date().toISOString(),
      released_at: null,
    };
    this.numbers.set(idempotencyKey, record);
    return record;
  }

  release(phoneNumber: string): boolean {
    for (const record of this.numbers.values()) {
      if (record.phone_number === phoneNumber && record.status === 'active') {
        record.status = 'released';
        record.released_at = new Date().toISOString();
        return true;
      }
    }
    return false;
  }
}

async function readJson(ctx: Koa.Context): Promise<Record<string, unknown>> {
  const raw = await getRawBody(ctx.req, { limit: 64 * 1024 });
  if (raw.length === 0) return {};
  try {
    return JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
  } catch {
    ctx.throw(400, 'invalid JSON');
  }
}

export function createCarrierSimulatorApp(options: { secret: string; state?: CarrierSimulatorState; processor?: CardProcessorSimulatorState }) {
  const state = options.state ?? new CarrierSimulatorState();
  const processor = options.processor ?? new CardProcessorSimulatorState();
  const router = new Router();
  const expectedAuth = Buffer.from(`Bearer ${options.secret}`);

  const requireCarrierAuth: Koa.Middleware = async (ctx, next) => {
    const presented = Buffer.from(ctx.get('authorization'));
    if (presented.length !== expectedAuth.length || !crypto.timingSafeEqual(presented, expectedAuth)) {
      ctx.status = 401;
      ctx.body = { error: 'invalid carrier credentials' };
      return;
    }
    await next();
  };

  // Carrier API: what a Switchboard adapter calls.
  router.post('/carrier/v1/numbers', requireCarrierAuth, async (ctx) => {
    const body = await readJson(ctx);
    const key = body.idempotency_key;
    if (typeof key !== 'string' || key === '') {
      ctx.status = 400;
      ctx.body = { error: 'idempotency_key is required' };
      return;
    }
    const fault = state.provisionFault;
    if (fault === 'hold') await state.waitWhileHeld();
    if (fault === 'reject') {
      ctx.status = 409;
      ctx.body = { error: 'no numbers available in this region' };
      return;
    }
    if (fault === 'error') {
      ctx.status = 503;
      ctx.body = { error: 'carrier temporarily unavailable' };
      return;
    }
    const record = state.provision(key, typeof body.country === 'string' ? body.country : 'US');
    ctx.status = 201;
    ctx.body = { phone_number: record.phone_number, number_ref: record.number_ref };
  });

  router.delete('/carrier/v1/numbers/:phone', requireCarrierAuth, async (ctx) => {
    state.release(ctx.params.phone);
    ctx.body = { released: true };
  });

  // Control API: what tests and the demo call to steer the simulated world.
  router.get('/control/numbers', async (ctx) => {
    ctx.body = { numbers: [...state.numbers.values()] };
  });
  router.post('/control/faults', async (ctx) => {
    const body = await readJson(ctx);
    const fault = body.provision_numbers;
    if (fault !== 'normal' && fault !== 'hold' && fault !== 'reject' && fault !== 'error') {
      ctx.status = 400;
      ctx.body = { error: 'provision_numbers must be normal, hold, reject or error' };
      return;
    }
    state.provisionFault = fault;
    if (fault !== 'hold') state.releaseHeld();
    ctx.body = { provision_numbers: state.provisionFault };
  });
  router.get('/control/holds', async (ctx) => {
    ctx.body = { held: state.heldCount };
  });
  router.post('/control/holds/release', async (ctx) => {
    ctx.body = { released: state.releaseHeld() };
  });
  router.get('/healthz', async (ctx) => {
    ctx.body = { status: 'ok' };
  });

  // The card processor lives in the same process (src/simulator/cardProcessorSimulator.ts).
  cardProcessorRoutes(router, processor, options.secret);

  const app = new Koa();
  app.silent = true;
  app.use(router.routes()).use(router.allowedMethods());
  return { app, state, processor };
}

export async function startCarrierSimulator(options: {
  host: string;
  port: number;
  secret: string;
}): Promise<{ server: http.Server; state: CarrierSimulatorState; processor: CardProcessorSimulatorState; url: string }> {
  const { app, state, processor } = createCarrierSimulatorApp({ secret: options.secret });
  const server = http.createServer(app.callback());
  // Requests held by the processor's `timeout` fault would keep close() waiting: let them go.
  const close = server.close.bind(server);
  server.close = ((callback?: (err?: Error) => void) => {
    processor.releaseHeld();
    return close(callback);
  }) as typeof server.close;
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return { server, state, processor, url: `http://${options.host}:${port}` };
}
