import { maskPhone, type Logger } from '../../src/platform/logger';
import { postEvent, sleep, type CallbackSender, type DeliveryOptions } from '../delivery';
import type { CarrierCallEvent } from '../../src/adapters/carrier/callbacks/wire';
import type { LiveCall } from './callRecords';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An event of an existing call, before the carrier stamps it with the call's ids and the time. */
export type CallEventBody = DistributiveOmit<Exclude<CarrierCallEvent, { type: 'call.incoming' }>, 'call_id' | 'carrier_call_id' | 'at'>;

/**
 * The carrier's clock and outbox for calls: every timer a call runs (so `stop()` can clear them
 * all), and the events each call POSTs back, chained per call so they arrive in order. Deliveries
 * go through simulator/delivery.ts and never throw, so a call's later events still go.
 */
export class CallEvents {
  private readonly timers = new Set<NodeJS.Timeout>();
  private abort = new AbortController();
  /** Signs and sends events; set by the app (`createSimulatorApp`). Without it events are not delivered. */
  callbacks: CallbackSender | null = null;
  /** Called with every event queued for an existing call (in-process observers such as the bench). */
  onEvent: ((event: CarrierCallEvent) => void) | null = null;

  constructor(
    private readonly delivery: DeliveryOptions,
    private readonly log: Logger,
  ) {}

  /** Runs `run` after `ms` as the call's ring (or transfer) timer, replacing none: one at a time per call. */
  schedule(call: LiveCall, ms: number, run: () => void): void {
    const timer = this.later(ms, () => {
      call.timer = null;
      run();
    });
    call.timer = timer;
  }

  /** Cancels the call's ring (or transfer) timer, if one is pending. */
  cancelSchedule(call: LiveCall): void {
    if (!call.timer) return;
    this.cancel(call.timer);
    call.timer = null;
  }

  /** A timer `stop()` clears. */
  later(ms: number, run: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
    return timer;
  }

  cancel(timer: NodeJS.Timeout): void {
    clearTimeout(timer);
    this.timers.delete(timer);
  }

  /** Waits `ms` unless the simulator stops first. */
  pause(ms: number): Promise<void> {
    return sleep(ms, this.abort.signal);
  }

  /** Queues `event` for the call's events URL, after the call's earlier events. */
  emit(call: LiveCall, event: CallEventBody): void {
    const { type, ...extra } = event;
    const full = {
      type,
      call_id: call.record.call_id ?? '',
      carrier_call_id: call.record.carrier_call_id,
      at: Date.now(),
      ...extra,
    } as CarrierCallEvent;
    const signal = this.abort.signal;
    call.queue = call.queue.then(async () => {
      await this.deliver(call, full, signal);
    });
    this.onEvent?.(full);
  }

  /**
   * Queues `call.incoming` for a ringing inbound call. A non-2xx answer is final (network errors
   * and timeouts are still retried); `declined` runs when it was not delivered, unless the
   * simulator stopped meanwhile.
   */
  announce(call: LiveCall, declined: () => void): void {
    const event: CarrierCallEvent = {
      type: 'call.incoming',
      carrier_call_id: call.record.carrier_call_id,
      from: call.record.from,
      to: call.record.to,
      at: Date.now(),
    };
    const signal = this.abort.signal;
    call.queue = call.queue.then(async () => {
      const result = await this.deliver(call, event, signal, { retryHttpErrors: false });
      if (result !== 'delivered' && !signal.aborted) declined();
    });
  }

  /** Clears every timer and abandons pending deliveries (the server is closing). */
  stop(): void {
    this.abort.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** After `stop()`, so that new calls deliver again (a reset). */
  restart(): void {
    this.stop();
    this.abort = new AbortController();
  }

  /** POSTs one event, retrying a few times (simulator/delivery.ts); never throws. */
  private async deliver(
    call: LiveCall,
    event: CarrierCallEvent,
    signal: AbortSignal,
    options: { retryHttpErrors?: boolean } = {},
  ): Promise<'delivered' | 'refused' | 'failed'> {
    const outcome = await postEvent({
      callbacks: this.callbacks,
      url: call.eventsUrl,
      event,
      signal,
      options: this.delivery,
      isFinal: () => options.retryHttpErrors === false,
      dropped: (error) => {
        let origin = '?';
        try {
          origin = new URL(call.eventsUrl).origin;
        } catch {
          // logged as '?'
        }
        const about = { call_id: 'call_id' in event ? event.call_id : null, carrier_call_id: event.carrier_call_id, type: event.type };
        const where = { to: maskPhone(call.record.to), events_origin: origin };
        this.log.warn({ ...about, ...where, attempts: this.delivery.attempts, error }, 'carrier event not delivered; dropped');
      },
    });
    return outcome.delivery;
  }
}
