import crypto from 'node:crypto';
import type { campaignWorkflow } from '../../../workflows/campaigns';
import { workflowIds } from '../../../workflows/definitions/ids';
import { startOrCompensate } from '../../platform/temporal/starts';
import { restrictedLineIds } from '../keys/grants';
import { knownLineIds } from '../lines/store';
import type { OutboundActor } from '../outbound/preflight';
import type { LoggedUseCaseDeps } from '../useCaseDeps';
import {
  CONTACT_LIST_TTL_DAYS,
  DEFAULT_CALLS_PER_MINUTE,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_RETRY_BACKOFF_SECONDS,
  RETRYABLE_OUTCOMES,
  settingsProblems,
  type AnsweringMachineAction,
  type SettingsProblem,
} from './rules';
import { copyListContacts, lockLiveContactList } from './contactListStore';
import { prepareContacts, type NewCampaignContact } from './contacts';
import { insertCampaign, insertContacts, paceInUse, type CampaignRow, type NewContact } from './store';

/**
 * What the customer asks for (`POST /campaigns`): the schema has checked each field's own form. The contacts are
 * given in the request, or as an uploaded list's id (`POST /campaigns/contact-lists`, a CSV): exactly one of them.
 */
export interface CreateCampaignRequest {
  name?: string;
  lineIds: string[];
  contacts?: NewCampaignContact[];
  /** An uploaded list's id, instead of `contacts`. */
  contactListId?: string;
  conversation?: { topic: string; beginMessage: string | null; maxDurationSec: number | null };
  machineDetection?: boolean;
  /** What the calls do when a machine answers (machine detection is then asked for): hang up, or leave `voicemailMessage`. */
  answeringMachine?: { action: AnsweringMachineAction; voicemailMessage: string | null };
  startAt?: Date;
  maxConcurrency?: number;
  callsPerMinute?: number;
  retry?: { maxAttempts?: number; backoffSec?: number; on?: string[] };
}

/** The request is refused: each problem names its field (422 `validation_error`). Nothing was recorded. */
export class CampaignRefusedError extends Error {
  constructor(readonly problems: SettingsProblem[]) {
    super(`campaign refused: ${problems.map((p) => p.field).join(', ')}`);
    this.name = 'CampaignRefusedError';
  }
}

/**
 * Creates a campaign and starts its workflow (`campaign:<id>`). Refused (nothing recorded) when a
 * pool line is unknown to the tenant or outside the key's lines (422 `line_ids.<n>`), or its
 * settings exceed their limits (rules.ts `settingsProblems`), or the uploaded list named is not the
 * tenant's or has expired (422 `contact_list_id`). The contacts are recorded in list order; invalid and
 * repeated numbers are recorded as skipped at once.
 */
export async function createCampaign(deps: LoggedUseCaseDeps, actor: OutboundActor, request: CreateCampaignRequest): Promise<CampaignRow> {
  const allowed = restrictedLineIds(actor.key);
  const known = new Set(await knownLineIds(deps.db, actor, request.lineIds));
  const lineProblems = request.lineIds.flatMap((lineId, index) =>
    !known.has(lineId) || (allowed && !allowed.includes(lineId))
      ? [{ field: `line_ids.${index}`, message: 'No line with this id that this key may use' }]
      : [],
  );
  const settings = {
    lineIds: request.lineIds,
    maxConcurrency: request.maxConcurrency ?? request.lineIds.length,
    callsPerMinute: request.callsPerMinute ?? DEFAULT_CALLS_PER_MINUTE,
    answeringMachine: request.answeringMachine,
  };
  const now = deps.now();
  const startAt = request.startAt ?? now;
  const id = crypto.randomUUID();
  const campaign = await deps.db.transaction(async (trx) => {
    // One creation at a time per tenant, so that two campaigns cannot both take the pace the other leaves.
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`campaigns:${actor.workspaceId}:${actor.environment}`]);
    const listId = request.contactListId;
    const uploaded = listId ? await lockLiveContactList(trx, actor, listId, now) : undefined;
    const problems = [...lineProblems, ...settingsProblems(settings, await paceInUse(trx, actor))];
    if (listId && !uploaded)
      problems.push({
        field: 'contact_list_id',
        message: `No contact list with this id (an uploaded list can be used for ${CONTACT_LIST_TTL_DAYS} days)`,
      });
    if (problems.length > 0) throw new CampaignRefusedError(problems);
    const listed = listId ? [] : prepareContacts(request.contacts ?? []);
    const row = await insertCampaign(trx, {
      id,
      workspace_id: actor.workspaceId,
      environment: actor.environment,
      user_id: actor.userId,
      actor_key_id: actor.key.id,
      name: request.name ?? null,
      status: 'scheduled',
      paused_reason: null,
      line_ids: request.lineIds,
      topic: request.conversation?.topic ?? null,
      begin_message: request.conversation?.beginMessage ?? null,
      max_duration_sec: request.conversation?.maxDurationSec ?? null,
      machine_detection: (request.machineDetection ?? false) || request.answeringMachine !== undefined,
      answering_machine: request.answeringMachine?.action ?? null,
      voicemail_message: request.answeringMachine?.action === 'voicemail' ? request.answeringMachine.voicemailMessage : null,
      max_concurrency: settings.maxConcurrency,
      calls_per_minute: settings.callsPerMinute,
      max_attempts: request.retry?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      retry_backoff_sec: request.retry?.backoffSec ?? DEFAULT_RETRY_BACKOFF_SECONDS,
      retry_on: request.retry?.on ?? [...RETRYABLE_OUTCOMES],
      start_at: startAt,
      contact_count: uploaded ? uploaded.row_count : listed.length,
      created_at: now,
      updated_at: now,
      ended_at: null,
      transitions: 0,
      paused_need_cents: null,
    });
    if (uploaded) {
      await copyListContacts(trx, uploaded.id, id, startAt, now);
      return row;
    }
    const contacts: NewContact[] = listed.map((contact) => ({
      id: crypto.randomUUID(),
      campaign_id: id,
      row_number: contact.row,
      to_number: contact.toNumber,
      variables: contact.variables,
      metadata: contact.metadata,
      status: contact.skip ? 'done' : 'pending',
      outcome: contact.skip ? 'skipped' : null,
      skip_reason: contact.skip,
      // Every contact is due from the start, in list order.
      next_attempt_at: contact.skip ? null : startAt,
      updated_at: now,
    }));
    await insertContacts(trx, contacts);
    return row;
  });
  await startOrCompensate<typeof campaignWorkflow>(
    deps.temporal,
    'campaignWorkflow',
    { taskQueue: deps.config.taskQueue, workflowId: workflowIds.campaign(id), args: [{ campaignId: id }] },
    async (outcome) => {
      deps.log.error({ campaign_id: id, start: outcome }, 'could not start the campaign workflow');
      // Nothing has dialled: a campaign whose workflow did not start is taken back whole.
      if (outcome !== 'not_started') return false;
      await deps.db.transaction(async (trx) => {
        await trx('campaign_contacts').where({ campaign_id: id }).delete();
        await trx('campaigns').where({ id }).delete();
      });
      return true;
    },
  );
  deps.log.info({ campaign_id: id, contacts: campaign.contact_count }, 'campaign created');
  return campaign;
}
