import type { Knex } from 'knex';
import type { Logger } from '../../platform/logger';
import { stableUuid } from '../../platform/stableId';
import { unreleasedLinesOf } from '../lines/store';
import { eventDestination } from '../webhooks/destination';
import { EVENT_POLICIES } from '../webhooks/events';
import { makeFirstAttempt, recordPublishedEvent, type PublishDeps } from '../webhooks/publish';
import type { EventRow } from '../webhooks/record';
import { progressOf, toContactResult } from './records';
import { transitionEvent, type CampaignEventType, type ResumedBy } from './rules';
import { attemptCalls, contactTally, setCampaignStatus, type CampaignRow, type ContactRow, type StatusChange } from './store';

/*
 * A campaign's `campaign.*` webhook events (docs/decisions/campaigns.md, "Campaign events"). Each is
 * recorded in the transaction of the change it tells of, under an id derived from that change (the
 * campaign's transition count, or the contact), so it exists exactly when the change does, once,
 * whoever retries what after a kill -9. Its first attempt is made after the commit by whoever made
 * the change (`publishCampaignEvents`); the webhook sweeper takes over an event whose raiser died.
 */

/**
 * Where a campaign's events go: its first pool line that is not released (its `webhook_url`, else
 * the workspace's `default_webhook_url`, signed with that line's secret, as the line's own events);
 * undefined when there is nowhere (the event is then not recorded, as a call event).
 */
async function eventLineOf(trx: Knex.Transaction, campaign: CampaignRow) {
  const tenant = { workspaceId: campaign.workspace_id, environment: campaign.environment };
  const lines = await unreleasedLinesOf(trx, tenant, campaign.line_ids);
  const line = campaign.line_ids.map((id) => lines.find((l) => l.id === id)).find((l) => l !== undefined);
  if (!line || !(await eventDestination(trx, tenant, line, EVENT_POLICIES['campaign.started'].target))) return undefined;
  return line;
}

async function recordCampaignEvent(
  trx: Knex.Transaction,
  campaign: CampaignRow,
  event: { id: string; type: CampaignEventType; payload: Record<string, unknown>; at: Date },
): Promise<EventRow | null> {
  const line = await eventLineOf(trx, campaign);
  if (!line) return null;
  return recordPublishedEvent(trx, {
    id: event.id,
    workspaceId: campaign.workspace_id,
    environment: campaign.environment,
    lineId: line.id,
    callId: null,
    type: event.type,
    target: EVENT_POLICIES[event.type].target,
    payload: { campaign_id: campaign.id, ...event.payload, timestamp: event.at.getTime() },
    actorKeyId: campaign.actor_key_id,
    now: event.at,
  });
}

/**
 * Changes a campaign's status (the caller holds its row's lock) and records the event the change
 * tells of, if any (`transitionEvent`), with the campaign's progress as it now stands. Answers the
 * campaign as it now is and the event as recorded (null: no event, or nowhere to send it).
 */
export async function changeCampaignStatus(
  trx: Knex.Transaction,
  before: CampaignRow,
  change: StatusChange,
  resumedBy: ResumedBy = 'operator',
): Promise<{ campaign: CampaignRow; event: EventRow | null }> {
  const campaign = await setCampaignStatus(trx, before.id, change);
  const type = transitionEvent(before, campaign);
  if (!type) return { campaign, event: null };
  const event = await recordCampaignEvent(trx, campaign, {
    id: stableUuid(campaign.id, 'campaign-transition', campaign.transitions),
    type,
    payload: {
      name: campaign.name,
      status: campaign.status,
      paused_reason: campaign.paused_reason,
      ...(type === 'campaign.resumed' ? { resumed_by: resumedBy } : {}),
      // Receivers order a campaign's events by it (arrival order is not guaranteed, as for every event).
      sequence: campaign.transitions,
      progress: progressOf(await contactTally(trx, campaign.id)),
    },
    at: change.at,
  });
  return { campaign, event };
}

/**
 * Records `campaign.contact_completed` for a contact just done after its dial (answered, a machine,
 * out of retries) or skipped at it: its result as `GET .../results` shows it, once per contact.
 */
export async function recordContactCompleted(
  trx: Knex.Transaction,
  campaign: CampaignRow,
  contact: ContactRow,
  at: Date,
): Promise<EventRow | null> {
  const { id, ...result } = toContactResult(contact, (await attemptCalls(trx, [contact.id])).get(contact.id) ?? []);
  return recordCampaignEvent(trx, campaign, {
    id: stableUuid(contact.id, 'campaign.contact_completed'),
    type: 'campaign.contact_completed',
    payload: { contact_id: id, ...result },
    at,
  });
}

/**
 * The first attempts of events recorded by a change that has committed, in the order they were
 * recorded (so a receiver that answers gets them in order). A failure is logged, never thrown: the
 * change stands, and the sweeper delivers what was not attempted.
 */
export async function publishCampaignEvents(deps: PublishDeps & { log: Logger }, events: ReadonlyArray<EventRow | null>): Promise<void> {
  for (const event of events) {
    if (!event) continue;
    await makeFirstAttempt(deps, event).catch((err: unknown) =>
      deps.log.warn({ err, event_id: event.id }, 'campaign event not attempted; the webhook sweeper will deliver it'),
    );
  }
}
