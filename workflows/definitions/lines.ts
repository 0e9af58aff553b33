import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { CarrierRefusal } from '../../src/domain/carriers/rules';
import type { NumberCriterion } from '../../src/domain/lines/numberChoice';

/** The line workflows' contract with the API: provisioning, release, and the signing-secret rotation. */

export interface ProvisionLineInput {
  lineId: string;
}

export type ProvisionLineResult =
  | { status: 'active'; phoneNumber: string }
  /**
   * `unavailable`: the carrier had no number as asked; the request field that matched nothing.
   * `refusal`: the carrier refused otherwise; which provider, and its code.
   */
  | { status: 'released'; reason: string; unavailable?: NumberCriterion; refusal?: CarrierRefusal };

export interface ReleaseLineInput {
  lineId: string;
}

export interface ReleaseLineResult {
  /** The number given back to the carrier; null when the release never committed. */
  releasedNumber: string | null;
}

export interface RotateSecretRequest {
  /** When the API received the rotate call (ISO 8601): the clock the 24-hour rule is measured on. */
  requestedAt: string;
}

export interface RotateSecretResult {
  /** Row id of the newly staged secret; the API reads (and returns) its plaintext once. */
  secretId: string;
  rotatedAt: string;
  promotedPreviousNext: boolean;
}

/** What the line-secrets workflow carries into its next run. */
export interface LineSecretsState {
  stagedAt: number | null;
  stagedSecretId: string | null;
}

export const rotateSecretUpdate = defineUpdate<RotateSecretResult, [RotateSecretRequest]>('rotateSecret');
/** Sent by the release: the line is gone, so its secrets workflow refuses rotations and finishes. */
export const closeLineSecretsSignal = defineSignal('closeLineSecrets');
