import crypto from 'node:crypto';
import type Koa from 'koa';
import type Router from '@koa/router';
import { badRequest, readJson } from '../http';

/**
 * The carrier's phone numbers: handed out on request (idempotent on the request's key) and
 * released, with a provisioning fault the control API sets to make requests hang, fail or be
 * refused. See docs/simulator.md, "Carrier API" and "Control API".
 */

export type ProvisionFault = 'normal' | 'hold' | 'reject' | 'error';

export interface NumberRecord {
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

/** The numbers handed out, and how provisioning behaves (the control API's `/control/faults`). */
export class NumberSimulatorState {
  /** By idempotency key. */
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

/** The carrier's number API (`/carrier/v1/numbers...`) and its control API (numbers, faults, holds). */
export function numberRoutes(router: Router, state: NumberSimulatorState, requireCarrierAuth: Koa.Middleware): void {
  router.post('/carrier/v1/numbers', requireCarrierAuth, async (ctx) => {
    const body = await readJson(ctx);
    const key = body.idempotency_key;
    if (typeof key !== 'string' || key === '') return badRequest(ctx, 'idempotency_key is required');
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

  router.get('/control/numbers', async (ctx) => {
    ctx.body = { numbers: [...state.numbers.values()] };
  });
  router.post('/control/faults', async (ctx) => {
    const body = await readJson(ctx);
    const fault = body.provision_numbers;
    if (fault !== 'normal' && fault !== 'hold' && fault !== 'reject' && fault !== 'error') {
      return badRequest(ctx, 'provision_numbers must be normal, hold, reject or error');
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
}
