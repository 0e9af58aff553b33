import { defineSignal, defineUpdate } from '@temporalio/workflow';

/**
 * Live call control (`calls:control`): updates on the call workflow, so each request and its
 * result are in the call's history. The API maps a rejected update (the call is not live) to
 * 409 `call_not_active`. Result shapes are the client's (wire-shapes "Speak, wait and press").
 */

export interface SpeakRequest {
  text: string;
  /** Also wait for the caller's next sentence after speaking. */
  waitForResponse: boolean;
  /** How long to wait for that sentence. */
  timeoutSeconds: number;
  /** Names the wait, so the API can withdraw it when its client goes away (`withdrawWaitSignal`). */
  waitId?: string;
}

export interface SpeakResult {
  call_id: string;
  /** The whole text was played. */
  spoke: boolean;
  /** The caller talked over it (or the call ended while it played). */
  interrupted: boolean;
  /** What the caller heard before the interruption; null when not interrupted. */
  partial_response_text: string | null;
  /** `caller_interrupted_control` or `call_ended`; null when not interrupted. */
  interruption_reason: string | null;
  /** No sentence came within the timeout (false when the call ended first: `call_ended`). */
  timed_out: boolean;
  /** The call ended while waiting for the caller (absent in answers recorded before it existed). */
  call_ended?: boolean;
  response_text: string | null;
  /** Epoch ms of the caller's response. */
  response_timestamp: number | null;
}

export interface WaitRequest {
  timeoutSeconds: number;
  /** As on `SpeakRequest`. */
  waitId?: string;
}

export interface WaitResult {
  call_id: string;
  /** No sentence came within the timeout (false when the call ended first: `call_ended`). */
  timed_out: boolean;
  /** The call ended while waiting (absent in answers recorded before it existed). */
  call_ended?: boolean;
  response_text: string | null;
  response_timestamp: number | null;
}

export interface PressRequest {
  /** DTMF: 0-9, *, #, and `w` for a half-second pause. */
  digits: string;
}

export interface PressResult {
  call_id: string;
  pressed: boolean;
  digits: string;
}

export interface TransferRequest {
  /** E.164, cleared by the API (src/domain/calls/transfer.ts). */
  toNumber: string;
}

export interface TransferResult {
  call_id: string;
  to_number: string;
  /** The destination answered and is connected to the caller; Switchboard is out of the call's media from now on. */
  transferred: boolean;
  /**
   * Why not: the destination did not answer (busy, no answer, failed), the call ended, or a refusal that names no provider
   * (a carrier's refusal fails the update instead: 502 `carrier_error`). Null when transferred.
   */
  failure_reason: 'not_answered' | 'refused' | 'call_ended' | null;
}

export const speakUpdate = defineUpdate<SpeakResult, [SpeakRequest]>('speak');
export const transferUpdate = defineUpdate<TransferResult, [TransferRequest]>('transfer');
export const waitUpdate = defineUpdate<WaitResult, [WaitRequest]>('wait');
export const pressUpdate = defineUpdate<PressResult, [PressRequest]>('press');

/**
 * The API's client for the wait `waitId` went away: the wait ends at once, unanswered, so the
 * caller's next sentence goes to the next wait (or the conversation), not to a request nobody reads.
 */
export const withdrawWaitSignal = defineSignal<[{ waitId: string }]>('withdrawWait');

/** What the validators say when the call is not live; the API answers 409 `call_not_active`. */
export const CALL_NOT_ACTIVE = 'call_not_active';
/** What the validators say when another request already waits for the caller; the API answers 409 `wait_in_progress`. */
export const WAIT_IN_PROGRESS = 'wait_in_progress';

/** DTMF digits the carrier can send (`w`: a half-second pause). */
export const DTMF_DIGITS = /^[0-9*#w]{1,64}$/;

/** Defaults and bounds for waiting on the caller. */
export const DEFAULT_RESPONSE_TIMEOUT_SECONDS = 30;
export const MAX_RESPONSE_TIMEOUT_SECONDS = 120;
