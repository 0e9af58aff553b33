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

/**
 * US area codes a line's number is drawn from: 555-2000…9999 in each, about two million numbers.
 * Never 650, which tests keep for remote parties. Many codes, because every test file's simulator
 * draws on its own while all of them share one database, where a number may be held by one line
 * only: with ten codes (80,000 numbers) a full run drew a number another file's line held, and
 * that line never became active.
 */
const AREA_CODES =
  '201 202 203 205 206 207 208 209 210 212 213 214 215 216 217 218 219 224 225 231 234 239 240 248 251 252 253 254 256 260 262 267 269 270 272 276 281 301 302 303 304 305 307 308 309 310 312 313 314 315 316 317 318 319 320 321 323 325 330 331 334 336 337 339 347 351 352 360 361 385 386 401 402 404 405 406 407 408 409 410 412 413 414 415 417 419 423 424 425 430 432 434 435 440 442 443 469 470 475 478 479 480 484 501 502 503 504 505 507 508 509 510 512 513 515 516 517 518 520 530 540 541 551 559 561 562 563 567 570 571 573 574 575 580 585 586 601 602 603 605 606 607 608 609 610 612 614 615 616 617 618 619 620 623 626 630 631 636 641 646 657 660 661 662 678 682 701 702 703 704 706 707 708 712 713 714 715 716 717 718 719 720 724 727 731 732 734 740 754 757 760 763 765 770 772 773 774 775 781 785 786 801 802 803 804 805 806 808 810 812 813 814 815 816 817 818 828 830 831 832 843 845 847 848 850 856 857 858 859 860 862 863 864 865 870 872 878 901 903 904 906 907 908 909 910 912 913 914 915 916 917 918 919 920 925 928 931 936 937 940 941 947 949 951 952 954 956 970 971 972 973 978 979 980 985 989'.split(
    ' ',
  );

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
