import type { Knex } from 'knex';
import type { Db } from '../../platform/db/knex';
import { containingPattern } from '../../platform/db/textMatch';
import { whereNumberMatches, type NumberMatch } from '../../platform/db/numberMatch';
import { preparedStatement } from '../../platform/db/prepared';
import { CARRIER_ERROR, carrierRefusalMessage, type CarrierProviderName, type CarrierRefusal } from '../carriers/rules';
import type { Environment } from '../keys/format';
import {
  numberUnavailableMessage,
  NUMBER_UNAVAILABLE,
  type NumberChoice,
  type NumberCriterion,
  type NumberSource,
  type NumberType,
} from './numberChoice';
import type { ToolDeclaration } from '../tools/declarations';
import type { LineMode, LineStatus } from './rules';

export interface LineRow {
  id: string;
  workspace_id: string;
  user_id: string;
  environment: Environment;
  name: string;
  display_name: string | null;
  mode: LineMode;
  system_prompt: string | null;
  begin_message: string | null;
  voice: string | null;
  context_limit: number | null;
  webhook_url: string | null;
  audio_handler_url: string | null;
  status_callback_url: string | null;
  recording_enabled: boolean;
  compliance_enabled: boolean;
  language: string;
  endpointing_ms: number | null;
  /** The tools its model may call (src/domain/tools/rules.ts); null for none. */
  tools: ToolDeclaration[] | null;
  phone_number: string | null;
  /** What the number was asked as (an import: what the owned number is). */
  number_country: string;
  number_type: NumberType;
  area_code: string | null;
  number_source: NumberSource;
  /** The owned number an import asked for (E.164); null for a bought one. */
  import_number: string | null;
  status: LineStatus;
  /** Why provisioning failed, for operators (may quote the carrier); never shown to the customer. */
  failure_reason: string | null;
  /**
   * What the customer is shown of it: `number_unavailable` and the request field it names, or
   * `carrier_error` and the provider that refused with its code; null for any other failure.
   */
  failure_code: string | null;
  failure_field: NumberCriterion | null;
  failure_provider: CarrierProviderName | null;
  failure_provider_code: string | null;
  grace_ends_at: Date | null;
  created_by_key_id: string | null;
  created_at: Date;
  updated_at: Date;
  activated_at: Date | null;
  released_at: Date | null;
}

/** Every read is scoped by workspace and environment: test and live data never mix. */
export interface Tenant {
  workspaceId: string;
  environment: Environment;
}

export function linesOf(db: Db, tenant: Tenant) {
  return db<LineRow>('lines').where({ workspace_id: tenant.workspaceId, environment: tenant.environment });
}

/** The tenant's lines (released ones included) whose number matches, or whose name contains `name` (any case), newest first. */
export async function linesMatching(
  db: Db,
  tenant: Tenant,
  match: { number: NumberMatch } | { name: string },
  limit: number,
): Promise<LineRow[]> {
  const query = linesOf(db, tenant);
  if ('number' in match) whereNumberMatches(query, ['phone_number'], match.number);
  else query.andWhereRaw(`name ilike ? escape '\\'`, [containingPattern(match.name)]);
  return query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);
}

/** Which of `ids` name lines of the tenant (released ones included). */
export async function knownLineIds(db: Db, tenant: Tenant, ids: readonly string[]): Promise<string[]> {
  return linesOf(db, tenant)
    .whereIn('id', [...ids])
    .pluck('id');
}

/** The tenant's lines among `ids` that are not released, in no particular order. */
export async function unreleasedLinesOf(db: Db | Knex.Transaction, tenant: Tenant, ids: readonly string[]): Promise<LineRow[]> {
  return linesOf(db as Db, tenant)
    .whereIn('id', [...ids])
    .whereNot({ status: 'released' });
}

/**
 * The tenant's line by id, with named bindings `:line`, `:workspace` and `:environment`: `findLine` runs it, and the SMS
 * preflight's one statement reads it with the destination (../messages/store.ts `smsLineAndDestination`).
 */
export const LINE_BY_ID_SQL = 'select * from lines where id = :line and workspace_id = :workspace and environment = :environment';

const findLineStatement = preparedStatement('lines_find_by_id', LINE_BY_ID_SQL, ['line', 'workspace', 'environment']);

/** On every line's GET and most line-scoped requests: a prepared statement (src/platform/db/prepared.ts). */
export async function findLine(db: Db, tenant: Tenant, id: string): Promise<LineRow | undefined> {
  const [row] = await findLineStatement<LineRow>(db, [id, tenant.workspaceId, tenant.environment]);
  return row;
}

/** The active line that owns a number (E.164), where the carrier's calls and messages to it arrive. */
export async function findActiveLineByNumber(db: Db, phoneNumber: string): Promise<LineRow | undefined> {
  return db<LineRow>('lines').where({ phone_number: phoneNumber, status: 'active' }).first();
}

/** The columns a new line is created with; the rest are set by provisioning. */
export type NewLine = Omit<
  LineRow,
  | 'tools'
  | 'id'
  | 'phone_number'
  | 'failure_reason'
  | 'failure_code'
  | 'failure_field'
  | 'failure_provider'
  | 'failure_provider_code'
  | 'activated_at'
  | 'released_at'
> & { /** As jsonb takes it (`toolsColumn`). */ tools: string | null };

/** Serialises line creation per workspace and environment, so two concurrent "first lines" cannot both be free. */
export async function lockLineCreation(trx: Knex.Transaction, tenant: Tenant): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`lines:create:${tenant.workspaceId}:${tenant.environment}`]);
}

/**
 * How many lines the workspace has ever had in the environment, released ones included: the first
 * line is free per workspace, not per user (issue 27, H5: invited members each got one before).
 */
export async function countLinesOfWorkspace(db: Db | Knex.Transaction, tenant: Tenant): Promise<number> {
  const [{ count }] = await linesOf(db as Db, tenant).count<{ count: string }[]>('id as count');
  return Number(count);
}

export async function insertLine(db: Db | Knex.Transaction, line: NewLine): Promise<LineRow> {
  const [inserted] = await db('lines').insert(line).returning<LineRow[]>('*');
  return inserted;
}

export async function updateLine(db: Db | Knex.Transaction, lineId: string, changes: Record<string, unknown>, now: Date): Promise<LineRow> {
  const [updated] = await db<LineRow>('lines')
    .where({ id: lineId })
    .update({ ...changes, updated_at: now })
    .returning('*');
  return updated;
}

export async function markLineReleased(db: Db | Knex.Transaction, lineId: string, now: Date): Promise<LineRow> {
  return updateLine(db, lineId, { status: 'released', released_at: now }, now);
}

/** The public line record (wire shape of GET /api/v1/lines/{id}). */
export function toLineRecord(row: LineRow) {
  return {
    id: row.id,
    phone_number: row.phone_number,
    display_name: row.display_name,
    name: row.name,
    mode: row.mode,
    audio_handler_url: row.audio_handler_url,
    webhook_url: row.webhook_url,
    status_callback_url: row.status_callback_url,
    system_prompt: row.system_prompt,
    begin_message: row.begin_message,
    voice: row.voice,
    context_limit: row.context_limit,
    language: row.language,
    endpointing_ms: row.endpointing_ms,
    tools: row.tools ?? [],
    recording_enabled: row.recording_enabled,
    compliance_enabled: row.compliance_enabled,
    country: row.number_country,
    number_type: row.number_type,
    area_code: row.area_code,
    number_source: row.number_source,
    status: row.status,
    provisioning_error: provisioningError(row),
    environment: row.environment,
    grace_ends_at: row.grace_ends_at ? row.grace_ends_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
  };
}

/** The number a line asked for, as provisioning reads it. */
export function numberChoiceOf(row: LineRow): NumberChoice {
  const { number_country: country, number_type: numberType } = row;
  if (row.number_source === 'imported' && row.import_number)
    return { source: 'imported', phoneNumber: row.import_number, country, numberType };
  return { source: 'purchased', country, numberType, areaCode: row.area_code };
}

/** The action a line's number refusal names (the 502 `carrier_error` of `POST /lines` and `provisioning_error` alike). */
export const PROVISION_NUMBER_ACTION = 'provide a number for this line';

/** Why a line that never got its number was released, as the customer may read it (the carrier's own words stay server-side). */
function provisioningError(row: LineRow) {
  if (row.status !== 'released' || row.activated_at !== null || row.failure_reason === null) return null;
  const noProvider = { provider: null, provider_code: null };
  if (row.failure_code === NUMBER_UNAVAILABLE && row.failure_field) {
    const message = numberUnavailableMessage(numberChoiceOf(row), row.failure_field);
    return { code: NUMBER_UNAVAILABLE, field: row.failure_field, message, ...noProvider };
  }
  if (row.failure_code === CARRIER_ERROR && row.failure_provider) {
    const refusal = { provider: row.failure_provider, ...(row.failure_provider_code ? { code: row.failure_provider_code } : {}) };
    const message = carrierRefusalMessage(refusal, PROVISION_NUMBER_ACTION);
    return { code: CARRIER_ERROR, field: null, message, provider: row.failure_provider, provider_code: row.failure_provider_code };
  }
  return { code: 'provisioning_failed', field: null, message: 'No number could be provisioned for this line', ...noProvider };
}

/** A line by id alone, for the worker's activities (the id comes from a workflow, never from a request). */
export async function findLineById(db: Db, lineId: string): Promise<LineRow | undefined> {
  return db<LineRow>('lines').where({ id: lineId }).first();
}

/** What a line's number fee is decided from (src/domain/billing/numberFees.ts). */
export type NumberHolding = Pick<
  LineRow,
  | 'id'
  | 'workspace_id'
  | 'environment'
  | 'phone_number'
  | 'number_type'
  | 'created_by_key_id'
  | 'activated_at'
  | 'grace_ends_at'
  | 'released_at'
>;

/** Lines that held their number at some time in [start, end), in id order after `afterLineId`, a page at a time. */
export async function linesHoldingNumbers(
  db: Db,
  input: { start: Date; end: Date; afterLineId: string | null; pageSize: number },
): Promise<NumberHolding[]> {
  const query = db<LineRow>('lines')
    .whereNotNull('activated_at')
    .andWhere('activated_at', '<', input.end)
    .andWhere((q) => q.whereNull('released_at').orWhere('released_at', '>', input.start))
    .orderBy('id')
    .limit(input.pageSize)
    .select(
      'id',
      'workspace_id',
      'environment',
      'phone_number',
      'number_type',
      'created_by_key_id',
      'activated_at',
      'grace_ends_at',
      'released_at',
    );
  if (input.afterLineId) query.andWhere('id', '>', input.afterLineId);
  return query;
}

/** The index that keeps a number to one line not released (migrations 0001, 0037). */
const NUMBER_IN_USE_INDEX = 'lines_phone_number_in_use';

/**
 * The number the carrier gave is another line's (an import of a number a line holds, or a number
 * handed out twice): waiting will not change that, so provisioning fails (security review L19).
 */
export class NumberInUseError extends Error {
  constructor(readonly phoneNumber: string) {
    super('the number is held by another line');
  }
}

/**
 * Completes provisioning. Idempotent: a retried activity that finds the line already
 * active with this number changes nothing. Returns what the line looks like afterwards.
 */
export async function activateLine(
  db: Db,
  lineId: string,
  phoneNumber: string,
  now: Date,
): Promise<'activated' | 'already_active' | 'gone'> {
  let updated: number;
  try {
    updated = await db<LineRow>('lines')
      .where({ id: lineId, status: 'provisioning' })
      .update({ status: 'active', phone_number: phoneNumber, activated_at: now, updated_at: now });
  } catch (err) {
    if ((err as { constraint?: string }).constraint === NUMBER_IN_USE_INDEX) throw new NumberInUseError(phoneNumber);
    throw err;
  }
  if (updated === 1) return 'activated';
  const row = await db<LineRow>('lines').where({ id: lineId }).first();
  if (row && row.status !== 'released' && row.phone_number === phoneNumber) return 'already_active';
  return 'gone';
}

/**
 * A line whose number could not be provisioned ends released, with the reason kept for operators
 * and, when the carrier had no number as asked, the request field that matched nothing, or when it
 * refused otherwise, the provider and its code.
 */
export async function failProvisioning(
  db: Db,
  lineId: string,
  reason: string,
  now: Date,
  why: { unavailable?: NumberCriterion; refusal?: CarrierRefusal } = {},
): Promise<void> {
  const { unavailable, refusal } = why;
  await db<LineRow>('lines')
    .where({ id: lineId, status: 'provisioning' })
    .update({
      status: 'released',
      failure_reason: reason,
      failure_code: unavailable ? NUMBER_UNAVAILABLE : refusal ? CARRIER_ERROR : null,
      failure_field: unavailable ?? null,
      failure_provider: !unavailable && refusal ? refusal.provider : null,
      failure_provider_code: !unavailable && refusal?.code ? refusal.code : null,
      released_at: now,
      updated_at: now,
    });
}

/**
 * Removes a line whose number the carrier refused (nothing matched, or another refusal), while the
 * customer is still waiting for the creating request (which then answers 422 `number_unavailable` or
 * 502 `carrier_error`): nothing of the refused request remains, not even a released line counting as
 * the user's first. Only such a line, which never had a number, calls or events, is removed; true when it was.
 */
export async function discardRefusedLine(db: Db, lineId: string): Promise<boolean> {
  return db.transaction(async (trx) => {
    const refused = trx<LineRow>('lines')
      .where({ id: lineId, status: 'released' })
      .whereIn('failure_code', [NUMBER_UNAVAILABLE, CARRIER_ERROR])
      .whereNull('activated_at');
    if (!(await refused.clone().forUpdate().first('id'))) return false;
    await trx('line_webhook_secrets').where({ line_id: lineId }).delete();
    return (await refused.delete()) === 1;
  });
}

/** Whether an unreleased line holds `phoneNumber` or is importing it (in any workspace or environment). */
export async function isNumberInUse(db: Db | Knex.Transaction, phoneNumber: string): Promise<boolean> {
  const holder = await db<LineRow>('lines')
    .whereNot({ status: 'released' })
    .andWhere((q) => q.where({ phone_number: phoneNumber }).orWhere({ import_number: phoneNumber }))
    .first('id');
  return holder !== undefined;
}

/** A number of the carrier account the operator let one workspace import (`number_grants`). */
export interface NumberGrantRow {
  id: string;
  workspace_id: string;
  environment: Environment;
  phone_number: string;
  created_at: Date;
}

export function numberGrantsOf(db: Db | Knex.Transaction, tenant: Tenant) {
  return db<NumberGrantRow>('number_grants').where({ workspace_id: tenant.workspaceId, environment: tenant.environment });
}

/** Grants `phoneNumber` to the tenant; undefined when another workspace holds the grant in that environment. */
export async function insertNumberGrant(db: Db, tenant: Tenant, phoneNumber: string, now: Date): Promise<NumberGrantRow | undefined> {
  const [row] = await db<NumberGrantRow>('number_grants')
    .insert({ workspace_id: tenant.workspaceId, environment: tenant.environment, phone_number: phoneNumber, created_at: now })
    .onConflict(['environment', 'phone_number'])
    .ignore()
    .returning('*');
  return row ?? (await numberGrantsOf(db, tenant).where({ phone_number: phoneNumber }).first());
}

export async function deleteNumberGrant(db: Db, tenant: Tenant, phoneNumber: string): Promise<boolean> {
  return (await numberGrantsOf(db, tenant).where({ phone_number: phoneNumber }).delete()) > 0;
}

/** Whether the tenant holds a line that is not released (the overview's getting-started checklist). */
export async function hasUnreleasedLine(db: Db, tenant: Tenant): Promise<boolean> {
  return (await linesOf(db, tenant).whereNot({ status: 'released' }).first('id')) !== undefined;
}
