import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { AudioActivities } from '../../activities/audio/activities';
import type { BillingActivities } from '../../activities/billing';
import type { CallActivities } from '../../activities/calls';
import type { HostedActivities } from '../../activities/hosted';
import type { RecordingActivities } from '../../activities/recordings';
import type { ToolActivities } from '../../activities/tools';
import * as options from '../activityOptions';
import type { CampaignCallActivities } from '../definitions/campaigns';
import { patches } from '../patches';

/** The call workflow's activities, each with the timeouts and retries its kind of work needs (workflows/activityOptions.ts). */

/** Carrier commands: retried while the carrier is unreachable, for at most a minute; a refusal is final. */
export const carrier = proxyActivities<CallActivities>(options.callCarrier);
const storeActivities = proxyActivities<CallActivities>(options.store);
const localEventPublish = proxyLocalActivities<CallActivities>(options.localEventPublish);

const localStoreActivities = proxyLocalActivities<CallActivities>(options.localStore);

/**
 * Issue 31 (a cheaper call): the call's state and disclosure records while it goes on are written by a local activity
 * in the workflow task (one marker event, no activity task round trip and no workflow task of their own); calls without
 * `patches.callRecordsInline` keep the normal activity. The end's records (`endRecords`) stay activities: the end runs
 * while a time-skipping test server would skip over a workflow task holding local activities (they would run twice).
 */
const recordsNow = () => (patched(patches.callRecordsInline) ? localStoreActivities : storeActivities);

/** Postgres writes. Events go through `publishCallEvent` below, never from here. */
export const records = {
  recordCallState: (...args: Parameters<CallActivities['recordCallState']>) => recordsNow().recordCallState(...args),
  recordDisclosurePlayed: (...args: Parameters<CallActivities['recordDisclosurePlayed']>) => recordsNow().recordDisclosurePlayed(...args),
  appendTranscript: storeActivities.appendTranscript,
};

/** The call's final state: an activity (see `records`). */
export const endRecords: Pick<CallActivities, 'recordCallState'> = storeActivities;

/**
 * Publishes a call event. Issue 14: recorded and attempted by a local activity in the workflow task (no workflow
 * per event, no activity task round trip); calls without `patches.eventsInline` keep the normal activity.
 */
export const publishCallEvent: CallActivities['publishCallEvent'] = (...args) =>
  patched(patches.eventsInline) ? localEventPublish.publishCallEvent(...args) : storeActivities.publishCallEvent(...args);
/** Taking the call over, in the first workflow task (no round trip through the server). */
export const claims = proxyLocalActivities<CallActivities>(options.localStore);
/** A whole webhook-mode caller turn, at most once (see `takeMessageTurn`; a late answer would be spoken out of turn). */
export const turns = proxyLocalActivities<CallActivities>(options.oneShot);
/** Settling the call's hold (and, inbound, holding its first minute). */
export const billing = proxyActivities<BillingActivities>(options.store);
/** Holding the next minute: a refusal, or no answer within 30 s, ends the call. */
export const funding = proxyActivities<BillingActivities>(options.holdNextMinute);
/** A hosted turn: one attempt, cancelled within a second by a barge-in. */
export const hosted = proxyActivities<HostedActivities>(options.hostedTurn);
/** The audio relay of an audio line, for the whole call. */
export const audio = proxyActivities<AudioActivities>(options.audioRelay);
export const keypad = proxyActivities<CallActivities>(options.keypad);
/** The tools a hosted call's model calls: one attempt each (a lost one is an error result for the model). */
export const tools = proxyActivities<ToolActivities>(options.toolCall);
/** An answered call, once ended: its durable copy asked for, in the call's last workflow task (workflows/recordings.ts). */
export const copies = proxyLocalActivities<RecordingActivities>(options.localStore);
/** A campaign's call, once ended: its attempt settled and its campaign woken, in the call's last workflow task. */
export const campaigns = proxyLocalActivities<CampaignCallActivities>(options.localStore);
