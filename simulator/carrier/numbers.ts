import crypto from 'node:crypto';
import type Koa from 'koa';
import type Router from '@koa/router';
import { badRequest, E164, readJson } from '../http';
import { findNumber, type SimNumberType, type Unmatched } from './inventory';

/**
 * The carrier's phone numbers: sold on request as searched (country, type, area code; see
 * ./inventory.ts), or imported from the account's own numbers (those it already owns, which the
 * control API seeds), idempotent on the request's key; released, or detached when imported. A
 * provisioning fault set through the control API makes requests hang, fail or be refused. See
 * docs/simulator.md, "Carrier API" and "Control API".
 */

export type ProvisionFault = 'normal' | 'hold' | 'reject' | 'error';

export interface NumberRecord {
  idempotency_key: string;
  phone_number: string;
  number_ref: string;
  /** As searched; null for an import (the account's number is whatever it is). */
  country: string | null;
  number_type: SimNumberType | null;
  /** `purchased`: sold for the request; `imported`: one of the account's own numbers, routed to Switchboard. */
  origin: 'purchased' | 'imported';
  /** `released` (given back to the carrier) or `detached` (an import no longer routed; the account keeps it). */
  status: 'active' | 'released' | 'detached';
  /** How many provisioning requests carried this idempotency key. */
  requests: number;
  allocated_at: string;
  released_at: string | null;
}

/** A number the account owned before Switchboard asked for it (seeded through the control API). */
export interface OwnedNumber {
  phone_number: string;
  number_ref: string;
  /** Whether its calls and messages are routed to Switchboard (true once imported, false once detached). */
  routed_to_switchboard: boolean;
}

export type ProvisionRequest = { country: string; number_type: SimNumberType; area_code?: string } | { import_number: string };

/** What a refused provisioning answers: which request field matched nothing. */
export interface NumberRefusal {
  unmatched: Unmatched | 'phone_number';
}

const NUMBER_TYPES: readonly string[] = ['local', 'toll_free', 'mobile'];

/** The numbers handed out, the account's own ones, and how provisioning behaves (the control API's `/control/faults`). */
export class NumberSimulatorState {
  /** By idempotency key. */
  readonly numbers = new Map<string, NumberRecord>();
  /** The account's own numbers, by E.164. */
  readonly owned = new Map<string, OwnedNumber>();
  provisionFault: ProvisionFault = 'normal';
  private held: Array<() => void> = [];
  /** Numbers other accounts of the carrier hold (see `withhold`). */
  private readonly heldElsewhere = new Set<string>();

  /** Whether a number is sold, routed or held elsewhere already (never sold twice). */
  private isTaken(phoneNumber: string): boolean {
    return (
      this.owned.has(phoneNumber) ||
      this.heldElsewhere.has(phoneNumber) ||
      [...this.numbers.values()].some((n) => n.phone_number === phoneNumber && n.status === 'active')
    );
  }

  /**
   * Takes numbers off sale, as a carrier never sells a number another account holds. The test harness withholds
   * the numbers its database's lines hold: one simulator per test file sells into a database that earlier files
   * filled, where a number may be held by one line only.
   */
  withhold(phoneNumbers: Iterable<string>): void {
    for (const phoneNumber of phoneNumbers) this.heldElsewhere.add(phoneNumber);
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

  /** Adds a number to the account's own (for an import); adding it again changes nothing. */
  own(phoneNumber: string): OwnedNumber {
    const existing = this.owned.get(phoneNumber);
    if (existing) return existing;
    const owned = { phone_number: phoneNumber, number_ref: `PN${crypto.randomBytes(12).toString('hex')}`, routed_to_switchboard: false };
    this.owned.set(phoneNumber, owned);
    return owned;
  }

  /** Sells (or imports) a number for the key; the same key answers the same number. */
  provision(idempotencyKey: string, request: ProvisionRequest): NumberRecord | NumberRefusal {
    const existing = this.numbers.get(idempotencyKey);
    if (existing) {
      existing.requests += 1;
      return existing;
    }
    const base = {
      idempotency_key: idempotencyKey,
      status: 'active' as const,
      requests: 1,
      allocated_at: new Date().toISOString(),
      released_at: null,
    };
    let record: NumberRecord;
    if ('import_number' in request) {
      const owned = this.owned.get(request.import_number);
      if (!owned || owned.routed_to_switchboard) return { unmatched: 'phone_number' };
      owned.routed_to_switchboard = true;
      const { phone_number, number_ref } = owned;
      record = { ...base, phone_number, number_ref, country: null, number_type: null, origin: 'imported' };
    } else {
      const found = findNumber({ country: request.country, numberType: request.number_type, areaCode: request.area_code }, (n) =>
        this.isTaken(n),
      );
      if ('unmatched' in found) return found;
      const number_ref = `PN${crypto.randomBytes(12).toString('hex')}`;
      record = {
        ...base,
        phone_number: found.phoneNumber,
        number_ref,
        country: request.country,
        number_type: request.number_type,
        origin: 'purchased',
      };
    }
    this.numbers.set(idempotencyKey, record);
    return record;
  }

  /** Gives a number back to the carrier (an owned one leaves the account too). False when it was not held. */
  release(phoneNumber: string): boolean {
    this.owned.delete(phoneNumber);
    return this.settle(phoneNumber, 'released');
  }

  /** Stops routing an imported number to Switchboard; the account keeps it. */
  detach(phoneNumber: string): boolean {
    const owned = this.owned.get(phoneNumber);
    if (owned) owned.routed_to_switchboard = false;
    return this.settle(phoneNumber, 'detached') || owned !== undefined;
  }

  private settle(phoneNumber: string, status: 'released' | 'detached'): boolean {
    for (const record of this.numbers.values()) {
      if (record.phone_number === phoneNumber && record.status === 'active') {
        record.status = status;
        record.released_at = new Date().toISOString();
        return true;
      }
    }
    return false;
  }
}

/** The provisioning request in a carrier API body, or what is wrong with it. */
function provisionRequestOf(body: Record<string, unknown>): ProvisionRequest | string {
  if (body.import_number !== undefined) {
    if (typeof body.import_number !== 'string' || !E164.test(body.import_number)) return 'import_number must be E.164';
    if (body.area_code !== undefined || body.number_type !== undefined) return 'import_number excludes area_code and number_type';
    return { import_number: body.import_number };
  }
  const country = body.country ?? 'US';
  const numberType = body.number_type ?? 'local';
  if (typeof country !== 'string' || !/^[A-Z]{2}$/.test(country)) return 'country must be ISO 3166-1 alpha-2';
  if (typeof numberType !== 'string' || !NUMBER_TYPES.includes(numberType)) return 'number_type must be local, toll_free or mobile';
  if (body.area_code !== undefined && (typeof body.area_code !== 'string' || !/^\d{1,6}$/.test(body.area_code)))
    return 'area_code must be digits';
  return {
    country,
    number_type: numberType as SimNumberType,
    ...(body.area_code !== undefined ? { area_code: body.area_code as string } : {}),
  };
}

/** The carrier's number API (`/carrier/v1/numbers...`) and its control API (numbers, owned numbers, faults, holds). */
export function numberRoutes(router: Router, state: NumberSimulatorState, requireCarrierAuth: Koa.Middleware): void {
  router.post('/carrier/v1/numbers', requireCarrierAuth, async (ctx) => {
    const body = await readJson(ctx);
    const key = body.idempotency_key;
    if (typeof key !== 'string' || key === '') return badRequest(ctx, 'idempotency_key is required');
    const request = provisionRequestOf(body);
    if (typeof request === 'string') return badRequest(ctx, request);
    if (state.provisionFault === 'hold') await state.waitWhileHeld();
    // A held request completes with the fault in force when it is released (docs/simulator.md).
    const fault = state.provisionFault;
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
    const record = state.provision(key, request);
    if ('unmatched' in record) {
      ctx.status = 404;
      ctx.body = { error: 'no number matches the request', unmatched: record.unmatched };
      return;
    }
    ctx.status = 201;
    ctx.body = { phone_number: record.phone_number, number_ref: record.number_ref, origin: record.origin };
  });

  router.delete('/carrier/v1/numbers/:phone', requireCarrierAuth, async (ctx) => {
    state.release(ctx.params.phone);
    ctx.body = { released: true };
  });

  router.post('/carrier/v1/numbers/:phone/detach', requireCarrierAuth, async (ctx) => {
    ctx.body = { detached: state.detach(ctx.params.phone) };
  });

  router.get('/control/numbers', async (ctx) => {
    ctx.body = { numbers: [...state.numbers.values()], owned: [...state.owned.values()] };
  });
  router.post('/control/numbers/owned', async (ctx) => {
    const body = await readJson(ctx);
    if (typeof body.phone_number !== 'string' || !E164.test(body.phone_number)) return badRequest(ctx, 'phone_number must be E.164');
    ctx.status = 201;
    ctx.body = state.own(body.phone_number);
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
