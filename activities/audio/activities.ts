import { ApplicationFailure, Context } from '@temporalio/activity';
import { createLogger, type Logger } from '../../src/platform/logger';
import type { EgressPolicy } from '../../src/platform/net/egress';
import { newAudioStreamId, relayAudio, type RelayAudioOptions, type RelaySummary } from '../../src/domain/calls/audioRelay';
import { CarrierRejectedError, type CarrierAdapter, type CarrierMediaStream } from '../../src/adapters/carrier/port';

export interface AudioActivityDeps {
  carrier: CarrierAdapter;
  /** Guards the connection to the customer's audio_handler_url. */
  egress: EgressPolicy;
  log?: Logger;
  /** How often the relay heartbeats (default 2 s); the workflow's heartbeat timeout must be well above it. */
  heartbeatMs?: number;
  /** Connecting to the customer's socket (tests shorten it); see `RELAY_DEFAULTS`. */
  relayConnect?: RelayAudioOptions['connect'];
}

export interface RelayCallAudioInput {
  callId: string;
  lineId: string;
  carrierCallId: string;
  /** The line's `audio_handler_url`. */
  handlerUrl: string;
}

export type RelayCallAudioResult = RelaySummary;

/** Heartbeat details of `relayCallAudio`. */
export interface RelayHeartbeat {
  framesFromCarrier: number;
  framesToCarrier: number;
  dropped: number;
}

/**
 * Audio-mode calls: relays a call's audio between the carrier and the customer's socket
 * (src/domain/calls/audioRelay.ts, docs/audio.md).
 *
 * Contract with the call workflow:
 * - start `relayCallAudio` when a call on an audio line is answered, with a heartbeat timeout
 *   (about 10 s; it heartbeats every 2 s), a start-to-close timeout above the longest call, and
 *   cancellation type TRY_CANCEL or WAIT_CANCELLATION_COMPLETED;
 * - cancel it when the call ends: the relay sends `stop` and closes both ends, then the activity
 *   reports cancellation (it throws the cancellation, as cancelled activities do; the summary is logged);
 * - when it returns: `endedBy` `call` means the call ended first (nothing to do);
 *   `customer_closed` → hang up with end cause `audio_handler_closed`; `customer_unreachable` or
 *   `customer_error` → hang up with end cause `audio_handler_unavailable`;
 * - a carrier media failure throws a retryable `CarrierMediaFailed` (a retry reopens both ends
 *   with a new stream); a carrier refusal to open the stream (call not answered or gone) throws a
 *   non-retryable `CarrierRejected`.
 */
export function createAudioActivities(deps: AudioActivityDeps) {
  const log = deps.log ?? createLogger('audio-relay');
  const heartbeatMs = deps.heartbeatMs ?? 2_000;
  return {
    async relayCallAudio(input: RelayCallAudioInput): Promise<RelayCallAudioResult> {
      const ctx = Context.current();
      let opened: CarrierMediaStream | undefined;
      // From the start: opening the stream waits on the carrier's API and its socket (tens of seconds at worst),
      // longer than the heartbeat timeout; an attempt that went quiet would be retried while it still waits.
      const beat = () => {
        const stats = opened?.stats();
        ctx.heartbeat({
          framesFromCarrier: stats?.framesReceived ?? 0,
          framesToCarrier: stats?.framesSent ?? 0,
          dropped: stats?.dropped ?? 0,
        } satisfies RelayHeartbeat);
      };
      beat();
      const timer = setInterval(beat, heartbeatMs);
      let summary: RelaySummary;
      try {
        opened = await openStream(deps.carrier, input.carrierCallId);
        summary = await relayAudio({
          carrier: opened,
          handlerUrl: input.handlerUrl,
          callId: input.callId,
          lineId: input.lineId,
          streamId: newAudioStreamId(),
          signal: ctx.cancellationSignal,
          egress: deps.egress,
          log,
          connect: deps.relayConnect,
        });
      } finally {
        clearInterval(timer);
      }
      if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
      if (summary.endedBy === 'carrier_error')
        throw ApplicationFailure.retryable(
          `carrier media stream failed: ${summary.detail ?? 'unknown error'}`,
          'CarrierMediaFailed',
          summary,
        );
      return summary;
    },
  };
}

/** The carrier's stream of the call; its refusal (the call is not answered, or gone) is final. */
async function openStream(carrier: CarrierAdapter, carrierCallId: string): Promise<CarrierMediaStream> {
  try {
    return await carrier.openMediaStream({ carrierCallId });
  } catch (err) {
    if (err instanceof CarrierRejectedError) throw ApplicationFailure.nonRetryable(err.message, 'CarrierRejected');
    throw err;
  }
}

export type AudioActivities = ReturnType<typeof createAudioActivities>;
