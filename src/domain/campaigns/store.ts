import type { Knex } from 'knex';
import type { Db } from '../../platform/db/knex';
import type { Tenant } from '../lines/store';
import {
  LIVE_CAMPAIGN_STATUSES,
  type AnsweringMachineAction,
  type CampaignStatus,
  type ContactOutcome,
  type ContactStatus,
  type PausedReason,
} from './rules';

/** Campaigns, their contacts and attempts in Postgres: every read and write of them goes through here. */

type Conn = Db | Knex.Transaction;

export interface CampaignRow {
  id: string;
  workspace_id: string;
  environment: 'test' | 'live';
  user_id: string;
  actor_key_id: string | null;
  name: string | null;
  status: CampaignStatus;
  paused_reason: PausedReason | null;
  line_ids: string[];
  topic: string | null;
  begin_message: string | null;
  max_duration_sec: number | null;
  machine_detection: boolean;
  answering_machine: AnsweringMachineAction | null;
  voicemail_message: string | null;
  max_concurrency: number;
  calls_per_minute: number;
  max_attempts: number;
  retry_backoff_sec: number;
  retry_on: string[];
  start_at: Date;
  contact_count: number;
  created_at: Date;
  updated_at: Date;
  ended_at: Date | null;
}

export interface ContactRow {
  id: string;
  campaign_id: string;
  row_number: number;
  to_number: string;
  variables: Record<string, string> | null;
  metadata: Record<string, string> | null;
  status: ContactStatus;
  outcome: ContactOutcome | null;
  skip_reason: string | null;
  attempts: number;
  next_attempt_at: Date | null;
  claim_token: string | null;
  duration_sec: number;
  charge_cents: string;
  updated_at: Date;
}

export type NewContact = Pick<
  ContactRow,
  | 'id'
  | 'campaign_id'
  | 'row_number'
  | 'to_number'
  | 'variables'
  | 'metadata'
  | 'status'
  | 'outcome'
  | 'skip_reason'
  | 'next_attempt_at'
  | 'updated_at'
>;

export function campaignsOf(db: Conn, tenant: Tenant) {
  return db<CampaignRow>('campaigns').where({ workspace_id: tenant.workspaceId, environment: tenant.environment });
}

export async function findCampaign(db: Conn, tenant: Tenant, id: string): Promise<CampaignRow | undefined> {
  return campaignsOf(db, tenant).andWhere({ id }).first();
}

/** The workflow's read: by id alone (the workflow carries no tenant of its own to scope by). */
export async function findCampaignById(db: Conn, id: string): Promise<CampaignRow | undefined> {
  return db<CampaignRow>('campaigns').where({ id }).first();
}

export async function lockCampaign(trx: Knex.Transaction, id: string): Promise<CampaignRow | undefined> {
  return trx<CampaignRow>('campaigns').where({ id }).forUpdate().first();
}

/** The per-minute pace the tenant's campaigns that may still dial ask for together. */
export async function paceInUse(db: Conn, tenant: Tenant): Promise<number> {
  const [row] = await campaignsOf(db, tenant)
    .whereIn('status', [...LIVE_CAMPAIGN_STATUSES])
    .sum<{ sum: string | null }[]>({ sum: 'calls_per_minute' });
  return Number(row?.sum ?? 0);
}

export async function insertCampaign(trx: Knex.Transaction, row: CampaignRow): Promise<CampaignRow> {
  const [inserted] = await trx<CampaignRow>('campaigns').insert(row).returning('*');
  return inserted;
}

/** Up to 100,000 contacts, in batches Postgres's 65,535 bind parameters allow. */
export async function insertContacts(trx: Knex.Transaction, rows: NewContact[]): Promise<void> {
  await trx.batchInsert('campaign_contacts', rows, 2_000);
}

export async function setCampaignStatus(
  db: Conn,
  id: string,
  change: { status: CampaignStatus; pausedReason?: PausedReason | null; at: Date },
): Promise<void> {
  const ended = change.status === 'completed' || change.status === 'cancelled';
  await db('campaigns')
    .where({ id })
    .update({
      status: change.status,
      paused_reason: change.pausedReason ?? null,
      updated_at: change.at,
      ...(ended ? { ended_at: change.at } : {}),
    });
}

/** Contacts by status and outcome: a campaign's progress. */
export async function contactTally(
  db: Conn,
  campaignId: string,
): Promise<Array<{ status: ContactStatus; outcome: ContactOutcome | null; count: number }>> {
  const rows = await db('campaign_contacts')
    .where({ campaign_id: campaignId })
    .groupBy('status', 'outcome')
    .select('status', 'outcome')
    .count<Array<{ status: ContactStatus; outcome: ContactOutcome | null; count: string }>>('* as count');
  return rows.map((row) => ({ status: row.status, outcome: row.outcome, count: Number(row.count) }));
}

/** A page of contacts in list order, after row number `afterRow`. */
export async function contactsAfter(db: Conn, campaignId: string, afterRow: number, limit: number): Promise<ContactRow[]> {
  return db<ContactRow>('campaign_contacts')
    .where({ campaign_id: campaignId })
    .andWhere('row_number', '>', afterRow)
    .orderBy('row_number')
    .limit(limit);
}

/** The calls each contact's attempts placed, oldest first. */
export async function attemptCalls(db: Conn, contactIds: readonly string[]): Promise<Map<string, string[]>> {
  const rows = await db('campaign_attempts')
    .whereIn('contact_id', [...contactIds])
    .orderBy(['contact_id', 'attempt'])
    .select<Array<{ contact_id: string; call_id: string }>>('contact_id', 'call_id');
  const calls = new Map<string, string[]>();
  for (const row of rows) calls.set(row.contact_id, [...(calls.get(row.contact_id) ?? []), row.call_id]);
  return calls;
}

export async function countDialing(db: Conn, campaignId: string): Promise<number> {
  const [row] = await db('campaign_contacts')
    .where({ campaign_id: campaignId, status: 'dialing' })
    .count<{ count: string }[]>({ count: '*' });
  return Number(row.count);
}

/** When the next pending contact is due (null: none is pending). */
export async function nextDueAt(db: Conn, campaignId: string): Promise<Date | null> {
  const [row] = await db('campaign_contacts')
    .where({ campaign_id: campaignId, status: 'pending' })
    .min<{ min: Date | null }[]>({ min: 'next_attempt_at' });
  return row?.min ?? null;
}

/**
 * Claims up to `limit` contacts due at `now` for the dispatcher's step `token`, in list order (a
 * retry when its time comes, before fresh contacts further down), counting the attempt. A step
 * claims once: run again (its activity retried after it committed) it answers the same contacts.
 */
export async function claimDueContacts(
  trx: Knex.Transaction,
  campaignId: string,
  token: string,
  limit: number,
  now: Date,
): Promise<ContactRow[]> {
  const claimed = await trx<ContactRow>('campaign_contacts').where({ campaign_id: campaignId, claim_token: token }).orderBy('row_number');
  if (claimed.length > 0 || limit <= 0) return claimed;
  const due = trx('campaign_contacts')
    .where({ campaign_id: campaignId, status: 'pending' })
    .andWhere('next_attempt_at', '<=', now)
    .orderBy([{ column: 'next_attempt_at' }, { column: 'row_number' }])
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .select('id');
  return trx<ContactRow>('campaign_contacts')
    .whereIn('id', due)
    .update({ status: 'dialing', attempts: trx.raw('attempts + 1'), claim_token: token, updated_at: now })
    .returning('*')
    .then((rows) => rows.sort((a, b) => a.row_number - b.row_number));
}

export async function findContact(db: Conn, campaignId: string, contactId: string): Promise<ContactRow | undefined> {
  return db<ContactRow>('campaign_contacts').where({ campaign_id: campaignId, id: contactId }).first();
}

/** A contact being dialled goes back to wait: its attempt did not happen (`uncount`) or will be retried. */
export async function returnContact(db: Conn, contactId: string, change: { at: Date; until: Date; uncount: boolean }): Promise<void> {
  await db('campaign_contacts')
    .where({ id: contactId, status: 'dialing' })
    .update({
      status: 'pending',
      next_attempt_at: change.until,
      claim_token: null,
      updated_at: change.at,
      ...(change.uncount ? { attempts: db.raw('greatest(attempts - 1, 0)') } : {}),
    });
}

/** A contact is done with its outcome (and why it was skipped, if it was). */
export async function finishContact(
  db: Conn,
  contactId: string,
  change: { at: Date; outcome: ContactOutcome; skipReason?: string; uncount?: boolean },
): Promise<void> {
  await db('campaign_contacts')
    .where({ id: contactId })
    .whereNot({ status: 'done' })
    .update({
      status: 'done',
      outcome: change.outcome,
      skip_reason: change.skipReason ?? null,
      next_attempt_at: null,
      claim_token: null,
      updated_at: change.at,
      ...(change.uncount ? { attempts: db.raw('greatest(attempts - 1, 0)') } : {}),
    });
}

/** A cancelled campaign's contacts that were still waiting. */
export async function cancelPendingContacts(db: Conn, campaignId: string, at: Date): Promise<void> {
  await db('campaign_contacts')
    .where({ campaign_id: campaignId, status: 'pending' })
    .update({ status: 'done', outcome: 'cancelled', next_attempt_at: null, claim_token: null, updated_at: at });
}

export interface AttemptRow {
  campaign_id: string;
  contact_id: string;
  attempt: number;
  call_id: string;
  line_id: string;
  outcome: string | null;
  created_at: Date;
}

export async function insertAttempt(trx: Knex.Transaction, row: Omit<AttemptRow, 'outcome'>): Promise<void> {
  await trx('campaign_attempts').insert(row);
}

export async function findAttempt(db: Conn, campaignId: string, contactId: string, attempt: number): Promise<AttemptRow | undefined> {
  return db<AttemptRow>('campaign_attempts').where({ campaign_id: campaignId, contact_id: contactId, attempt }).first();
}

/**
 * Records an attempt's outcome and adds its call's duration and charge to its contact, once: a
 * settlement run again finds the outcome set and changes nothing (answers false).
 */
export async function settleAttemptRow(
  trx: Knex.Transaction,
  attempt: { callId: string; contactId: string; outcome: string; durationSec: number; chargeCents: number; at: Date },
): Promise<boolean> {
  const updated = await trx('campaign_attempts')
    .where({ call_id: attempt.callId })
    .whereNull('outcome')
    .update({ outcome: attempt.outcome });
  if (updated === 0) return false;
  await trx('campaign_contacts')
    .where({ id: attempt.contactId })
    .update({
      duration_sec: trx.raw('duration_sec + ?', [attempt.durationSec]),
      charge_cents: trx.raw('charge_cents + ?', [attempt.chargeCents]),
      updated_at: attempt.at,
    });
  return true;
}

/** The campaign attempt that placed the call `callId`, with its contact's row; undefined for a call no campaign placed. */
export async function attemptOfCall(
  db: Conn,
  callId: string,
): Promise<{ campaign_id: string; row_number: number; attempt: number } | undefined> {
  return db('campaign_attempts')
    .join('campaign_contacts', 'campaign_contacts.id', 'campaign_attempts.contact_id')
    .where('campaign_attempts.call_id', callId)
    .first('campaign_attempts.campaign_id', 'campaign_contacts.row_number', 'campaign_attempts.attempt');
}
