import { defineSignal } from '@temporalio/workflow';
import type { MachineKind } from '../../src/adapters/carrier/callbacks/wire';

/** The campaign workflows' contract with the API and with each other (docs/decisions/campaigns.md). */

/** A campaign's dispatcher (workflow id `campaign:<id>`): it reads everything else from the campaign's rows. */
export interface CampaignInput {
  campaignId: string;
}

/** One claimed attempt of one contact (workflow id `campaign-attempt:<contact id>:<claim>`). */
export interface CampaignAttemptInput {
  campaignId: string;
  contactId: string;
  attempt: number;
}

/** The attempt workflow's signature, for starts by name outside workflow code (src/domain/campaigns/dispatch.ts). */
export type CampaignAttemptWorkflow = (input: CampaignAttemptInput) => Promise<void>;

/**
 * Look again: an attempt ended (a slot is free, a retry may be due), or the campaign was paused,
 * resumed or cancelled. Carries nothing: the campaign's rows say what changed.
 */
export const campaignWakeSignal = defineSignal('wake');

/**
 * A campaign's call has ended: its attempt, and `machineKind: fax` when the call hung up on a fax (its end cause,
 * `answering_machine`, is then no voicemail left: the outcome is `machine`).
 */
export interface CampaignCallEnd extends CampaignAttemptInput {
  machineKind?: MachineKind;
}

/** What a campaign's call does once it has ended (activities/campaigns.ts): settle its attempt and wake its campaign. */
export interface CampaignCallActivities {
  settleCampaignCall(ended: CampaignCallEnd): Promise<void>;
}
