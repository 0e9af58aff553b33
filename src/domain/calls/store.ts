import type { Knex } from 'knex';
import { containingPattern } from '../../platform/db/textMatch';
import { releaseHold } from '../billing/holds';
import type { BillingTenant } from '../billing/ledger';
import { disclosurePlayedIn } from '../compliance/disclosures';
import type { Zone } from '../billing/pricing';
import type { LineMode } from '../lines/rules';
import type { ToolDeclaration } from '../tools/declarations';
import { whereNumberMatches, type NumberMatch } from '../../platform/db/numberMatch';
import type { TenantRow } from '../workspaces/tenantRow';
import { servedRecordingUrl } from '../recordings/rules';
import { ACTIVE_CALL_STATUSES, type EndCause } from './rules';

export interface CallRow extends TenantRow {
  from_number: string;
  to_number: string;
  status: string;
  end_cause: string | null;
  carrier_call_id: string | null;
  mode: LineMode;
  zone: Zone;
  duration_sec: number | null;
  charge_cents: string | null;
  recording_url: string | null;
  answered_by: string | null;
  transferred_to: string | null;
  transcript: unknown[] | null;
  system_prompt: string | null;
  begin_message: string | null;
  topic: string | null;
  max_duration_sec: number | null;
  /** Set when the call was placed (`metadata`); echoed in its events. */
  metadata: Record<string, string> | null;
  /** The tools its model may call (the line's, or the call's own), fixed when the call was placed or answered. */
  tools: ToolDeclaration[] | null;
  created_at: Date;
  /** When the carrier said an outbound call started ringing (`recordOutboundRinging`); null for inbound calls. */
  ringing_at?: Date | null;
  started_at: Date | null;
  ended_at: Date | null;
  workflow_claimed_at?: Date | null;
  /** When a wait for the line's next inbound call took it (`claimNextInboundCall`). */
  wait_claimed_at?: Date | null;
}

/** A call as it is first recorded: outbound by the API, inbound when the carrier announces it. */
export type NewCall = Pick<
  CallRow,
  keyof TenantRow | 'from_number' | 'to_number' | 'status' | 'mode' | 'zone' | 'system_prompt' | 'begin_message' | 'created_at'
> &
  Partial<
    Pick<
      CallRow,
      'carrier_call_id' | 'topic' | 'max_duration_sec' | 'metadata' | 'end_cause' | 'ended_at' | 'duration_sec' | 'charge_cents'
    >
  > & { /** As jsonb takes it (`toolsColumn`). */ tools?: string | null };

/** The line already has an active call (the `calls_one_active_per_line` unique index): 409 `call_in_progress`. */
export class LineBusyError extends Error {
  constructor(readonly lineId: string) {
    super(`line ${lineId} already has an active call`);
    this.name = 'LineBusyError';
  }
}

/** Records a new call; a line has at most one active call, so a second one is a `LineBusyError`. */
export async function insertCall(db: Knex | Knex.Transaction, call: NewCall): Promise<CallRow> {
  try {
    const [row] = await db('calls').insert(call).returning<CallRow[]>('*');
    return row;
  } catch (err) {
    if ((err as { constraint?: string }).constraint === 'calls_one_active_per_line') throw new LineBusyError(call.line_id);
    throw err;
  }
}

/** The id of the line's active call, if it has one (a line has at most one: `calls_one_active_per_line`). */
export async function activeCallOfLine(db: Knex, lineId: string): Promise<string | undefined> {
  const row = await db('calls').where({ line_id: lineId }).whereIn('status', ACTIVE_CALL_STATUSES).first('id');
  return (row?.id as string | undefined) ?? undefined;
}

/** Which of these lines have an active call now (a placement on one of them would be refused `call_in_progress`). */
export async function linesWithActiveCalls(db: Knex, lineIds: readonly string[]): Promise<Set<string>> {
  if (lineIds.length === 0) return new Set();
  const rows = await db('calls')
    .whereIn('line_id', lineIds)
    .whereIn('status', ACTIVE_CALL_STATUSES)
    .select<Array<{ line_id: string }>>('line_id');
  return new Set(rows.map((row) => row.line_id));
}

export async function findCallById(db: Knex, callId: string): Promise<CallRow | undefined> {
  return db<CallRow>('calls').where({ id: callId }).first();
}

/**
 * Records when an outbound call started ringing, as its carrier reported it (`call.ringing`): the first report
 * only, bounded by the call's creation and the database's clock (a carrier's clock may be off), never for an
 * inbound call (it rings from `created_at`).
 */
export async function recordOutboundRinging(db: Knex, callId: string, at: Date): Promise<void> {
  await db('calls')
    .where({ id: callId, direction: 'outbound' })
    .whereNull('ringing_at')
    .update({ ringing_at: db.raw('greatest(created_at, least(?::timestamptz, now()))', [at.toISOString()]) });
}

/** The call the carrier knows as `carrierCallId` (an inbound call is recorded with it when it rings). */
/** The call's own system prompt (hosted lines: the line's, or the conversation call's); null when it has none. */
export async function callSystemPrompt(db: Knex, callId: string): Promise<string | null> {
  const row = await db('calls').where({ id: callId }).first('system_prompt');
  return (row?.system_prompt as string | null | undefined) ?? null;
}

export async function findCallByCarrierId(db: Knex, carrierCallId: string): Promise<CallRow | undefined> {
  return db<CallRow>('calls').where({ carrier_call_id: carrierCallId }).first();
}

/**
 * A recording the carrier saved after the call ended (Telnyx): kept on the call it belongs to,
 * never over one the call already has.
 */
export async function recordLateRecording(db: Knex, call: { id: string; carrierCallId: string }, recordingUrl: string): Promise<boolean> {
  const updated = await db('calls')
    .where({ id: call.id, carrier_call_id: call.carrierCallId })
    .whereNull('recording_url')
    .update({ recording_url: recordingUrl });
  return updated > 0;
}

/** An outbound call's carrier id, once the carrier has taken the dial. */
export async function setCarrierCallId(db: Knex, callId: string, carrierCallId: string): Promise<void> {
  await db('calls').where({ id: callId }).update({ carrier_call_id: carrierCallId });
}

/** A state change of a call as its workflow (or the recovery sweeper) reports it; times are epoch ms. */
export interface CallStateChange {
  status: string;
  startedAt?: number;
  endedAt?: number;
  durationSec?: number;
  chargeCents?: number;
  endCause?: string;
  recordingUrl?: string;
  /** Who answered (machine detection). */
  answeredBy?: string;
  /** The number the call was transferred to. */
  transferredTo?: string;
}

/**
 * Records a state change. Only an active call changes: an ended call (settled by its workflow,
 * failed by the API, or ended by the recovery sweeper) keeps its final state.
 */
export async function recordCallState(db: Knex, callId: string, state: CallStateChange): Promise<void> {
  await db('calls')
    .where({ id: callId })
    .whereIn('status', [...ACTIVE_CALL_STATUSES])
    .update({
      status: state.status,
      ...(state.startedAt !== undefined ? { started_at: new Date(state.startedAt) } : {}),
      ...(state.endedAt !== undefined ? { ended_at: new Date(state.endedAt) } : {}),
      ...(state.durationSec !== undefined ? { duration_sec: state.durationSec } : {}),
      ...(state.chargeCents !== undefined ? { charge_cents: state.chargeCents } : {}),
      ...(state.endCause !== undefined ? { end_cause: state.endCause } : {}),
      ...(state.recordingUrl !== undefined ? { recording_url: state.recordingUrl } : {}),
      ...(state.answeredBy !== undefined ? { answered_by: state.answeredBy } : {}),
      ...(state.transferredTo !== undefined ? { transferred_to: state.transferredTo } : {}),
    });
}

/** Active calls, oldest first: what the recovery sweeper looks through. */
function activeCalls(db: Knex, limit: number) {
  return db<CallRow>('calls')
    .whereIn('status', [...ACTIVE_CALL_STATUSES])
    .orderBy('created_at')
    .limit(limit);
}

/** Ids of the line's active calls (at most one: `calls_one_active_per_line`). */
export async function activeCallIdsOfLine(db: Knex, lineId: string): Promise<string[]> {
  return db('calls')
    .where({ line_id: lineId })
    .whereIn('status', [...ACTIVE_CALL_STATUSES])
    .pluck('id');
}

/** Ids of the oldest `limit` active calls created before `createdBefore`. */
export async function activeCallIdsCreatedBefore(db: Knex, createdBefore: Date, limit: number): Promise<string[]> {
  return activeCalls(db, limit).andWhere('created_at', '<', createdBefore).pluck('id');
}

/** Ids of the oldest `limit` active calls no workflow has claimed, created in [`createdAfter`, `createdBefore`). */
export async function unclaimedCallIds(db: Knex, window: { createdBefore: Date; createdAfter: Date; limit: number }): Promise<string[]> {
  return activeCalls(db, window.limit)
    .whereNull('workflow_claimed_at')
    .andWhere('created_at', '<', window.createdBefore)
    .andWhere('created_at', '>=', window.createdAfter)
    .pluck('id');
}

/**
 * How many calls are active, by environment and status, across every process: a scrape-time
 * gauge (the worker's /metrics). Reads only the partial index `calls_active_by_age` covers.
 */
export async function countActiveCalls(db: Knex): Promise<Array<{ environment: string; status: string; count: number }>> {
  const rows = await db('calls')
    .whereIn('status', [...ACTIVE_CALL_STATUSES])
    .groupBy('environment', 'status')
    .select('environment', 'status')
    .count<Array<{ environment: string; status: string; count: string }>>('* as count');
  return rows.map((row) => ({ environment: row.environment, status: row.status, count: Number(row.count) }));
}

/** A transcript entry as a workflow hands it over (timestamp in epoch ms). */
type PlainEntry = { role: string; text: string; timestamp: number; redactions?: EntryRedaction[] };

/** Transcript entries as the call record stores them (timestamps as ISO strings). */
const transcriptJson = (transcript: readonly PlainEntry[]) =>
  JSON.stringify(
    transcript.map((t) => ({
      role: t.role,
      text: t.text,
      timestamp: new Date(t.timestamp).toISOString(),
      ...(t.redactions && t.redactions.length > 0 ? { redactions: t.redactions } : {}),
    })),
  );

/** Replaces the whole transcript (calls from before sequenced transcripts). */
export async function writeTranscript(db: Knex, callId: string, transcript: readonly PlainEntry[]): Promise<void> {
  await db('calls')
    .where({ id: callId })
    .update({ transcript: transcriptJson(transcript) });
}

/** Appends entries without sequence numbers (calls from before sequenced transcripts; not idempotent). */
export async function appendUnsequencedTranscript(db: Knex, callId: string, entries: readonly PlainEntry[]): Promise<void> {
  const { sql, bindings } = transcriptAppend(callId, { unsequenced: entries });
  await db.raw(sql, bindings);
}

/** What a turn adds to its call's transcript: merged by `seq`, or (calls from before sequenced transcripts) appended. */
export type TranscriptAddition = { sequenced: readonly SequencedEntry[] } | { unsequenced: readonly PlainEntry[] };

/**
 * The UPDATE of `calls` that adds `addition` to the call's transcript (see `appendTranscript`), as
 * SQL and bindings, so a caller can run it inside its own statement (the webhook-mode turn's last one).
 */
export function transcriptAppend(callId: string, addition: TranscriptAddition): { sql: string; bindings: Knex.RawBinding[] } {
  if ('unsequenced' in addition)
    return {
      sql: "update calls set transcript = coalesce(transcript, '[]'::jsonb) || ?::jsonb where id = ?",
      bindings: [transcriptJson(addition.unsequenced), callId],
    };
  const json = JSON.stringify(
    addition.sequenced.map((e) => ({
      role: e.role,
      text: e.text,
      timestamp: new Date(e.timestamp).toISOString(),
      seq: e.seq,
      ...(e.interrupted ? { interrupted: true } : {}),
      ...(e.kind ? { kind: e.kind } : {}),
      ...(e.tool ? { tool: e.tool } : {}),
      ...(e.redactions && e.redactions.length > 0 ? { redactions: e.redactions } : {}),
    })),
  );
  return {
    sql: `update calls set transcript = (
       select coalesce(jsonb_agg(entry order by seq), '[]'::jsonb)
         from (select distinct on (seq) seq, entry
                 from (select (e->>'seq')::bigint as seq, e as entry, 0 as rank from jsonb_array_elements(coalesce(calls.transcript, '[]'::jsonb)) e
                       union all
                       select (e->>'seq')::bigint, e, 1 from jsonb_array_elements(?::jsonb) e) merged
                order by seq, rank desc) deduped)
     where id = ?`,
    bindings: [json, callId],
  };
}

/** The transcript as the API shows it (and the store keeps it: src/domain/recordings/copy.ts); null when the call has none. */
export function transcriptRecord(row: Pick<CallRow, 'transcript'>) {
  // Entries carry a sequence number for idempotent appends (see appendTranscript); it stays internal.
  return (
    row.transcript?.map((entry) => {
      const { role, text, timestamp, interrupted, kind, tool, redactions } = entry as {
        role: string;
        text: string;
        timestamp: string;
        interrupted?: boolean;
        kind?: string;
        tool?: ToolCallRecord;
        redactions?: EntryRedaction[];
      };
      return {
        role,
        text,
        timestamp,
        ...(interrupted ? { interrupted } : {}),
        ...(kind ? { kind } : {}),
        ...(tool ? { tool } : {}),
        ...(redactions && redactions.length > 0 ? { redactions } : {}),
      };
    }) ?? null
  );
}

/**
 * The call record on the wire (`{call}`). `recording_url` is Switchboard's own URL of the recording
 * (`GET /api/v1/calls/{id}/recording`, under `publicBaseUrl`) whenever the carrier reported one, never the carrier's.
 */
export function toCallRecord(row: CallRow, publicBaseUrl: string) {
  return {
    id: row.id,
    line_id: row.line_id,
    direction: row.direction,
    from_number: row.from_number,
    to_number: row.to_number,
    status: row.status,
    end_cause: row.end_cause,
    duration_sec: row.duration_sec,
    charge_cents: row.charge_cents === null ? null : Number(row.charge_cents),
    started_at: row.started_at ? row.started_at.toISOString() : null,
    ended_at: row.ended_at ? row.ended_at.toISOString() : null,
    recording_url: row.recording_url ? servedRecordingUrl(publicBaseUrl, row.id) : null,
    answered_by: row.answered_by,
    transferred_to: row.transferred_to,
    transcript: transcriptRecord(row),
    system_prompt: row.system_prompt,
    begin_message: row.begin_message,
    topic: row.topic,
    max_duration_sec: row.max_duration_sec,
    // Stripe's habit: always an object, empty when the call was placed without one.
    metadata: row.metadata ?? {},
    tools: row.tools ?? [],
    created_at: row.created_at.toISOString(),
  };
}

/**
 * What a call on this line says first: on compliance-enabled lines, the disclosure played in its
 * language (`disclosurePlayedIn`, src/domain/compliance/disclosures.ts).
 */
export async function callOpening(
  db: Knex,
  line: {
    workspace_id: string;
    environment: string;
    compliance_enabled: boolean;
    recording_enabled: boolean;
    language: string;
    begin_message: string | null;
    context_limit: number | null;
    system_prompt: string | null;
    voice: string | null;
    audio_handler_url: string | null;
  },
) {
  const disclosure = line.compliance_enabled ? await disclosurePlayedIn(db, line) : null;
  return {
    disclosure,
    beginMessage: line.begin_message,
    contextLimit: line.context_limit,
    language: line.language,
    languagePinned: line.language !== 'multi',
    record: line.recording_enabled,
    systemPrompt: line.system_prompt,
    voice: line.voice,
    audioHandlerUrl: line.audio_handler_url,
  };
}

/** One transcript entry as a workflow hands it over: `seq` orders the call's entries and makes appends idempotent. */
export interface SequencedEntry {
  seq: number;
  role: 'user' | 'assistant';
  /** What was said; for a key press (`kind: dtmf`), the digits. */
  text: string;
  /** Epoch milliseconds. */
  timestamp: number;
  /** The caller talked over this reply: `text` is the part they heard. */
  interrupted?: boolean;
  /** Absent for speech; `dtmf` for the agent's key presses; `tool` for a tool the model called (`text` is its name). */
  kind?: 'dtmf' | 'tool';
  /** `kind: tool`: the call and what came of it. */
  tool?: ToolCallRecord;
  /** The personal data redacted from `text` before it was written (src/domain/recordings/redaction.ts): each marker's kind and place. */
  redactions?: EntryRedaction[];
}

/** One redaction in a transcript entry's text: its kind and its marker's place (code points); never what was there. */
export interface EntryRedaction {
  kind: string;
  start: number;
  length: number;
}

/** A tool call as the transcript and the `tool_called` event show it. */
export interface ToolCallRecord {
  /** The model's id of the call (chat-completions `tool_calls[].id`). */
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** What the model was given back: the endpoint's answer, or the built-in's outcome (JSON text). */
  result: string;
  /** Why the tool failed (the model was told it), or null. */
  error: string | null;
}

/**
 * Merges entries into the call's transcript by `seq`: an entry already there (a retried append)
 * is kept once, and concurrent appends land in `seq` order whatever order they commit in. Of two
 * entries with one `seq`, the one appended last stands: an interrupted reply is rewritten this way
 * to what the caller heard (a retried append carries the same entry, so nothing older comes back).
 */
export async function appendTranscript(db: Knex, callId: string, entries: readonly SequencedEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const { sql, bindings } = transcriptAppend(callId, { sequenced: entries });
  await db.raw(sql, bindings);
}

/**
 * The call's workflow takes the call over (its first step). False when the call is no longer
 * active: the API compensated a start it could not confirm, and the workflow must not dial.
 */
export async function claimCall(db: Knex, callId: string, at: Date): Promise<boolean> {
  const claimed = await db('calls')
    .where({ id: callId })
    .whereIn('status', [...ACTIVE_CALL_STATUSES])
    .update({ workflow_claimed_at: db.raw('coalesce(workflow_claimed_at, ?)', [at]) })
    .returning('id');
  return claimed.length > 0;
}

/**
 * Ends a call whose workflow never took it over (its start failed, or could not be confirmed):
 * `failed`, and its hold released, in one transaction. False when a workflow has claimed it
 * (the call goes on) or it already ended.
 */
export async function failUnclaimedCall(
  db: Knex,
  input: { callId: string; tenant: BillingTenant; endCause: EndCause; at: Date },
): Promise<boolean> {
  return db.transaction(async (trx) => {
    const failed = await trx('calls')
      .where({ id: input.callId, workflow_claimed_at: null })
      .whereIn('status', [...ACTIVE_CALL_STATUSES])
      .update({ status: 'failed', end_cause: input.endCause, ended_at: input.at, duration_sec: 0, charge_cents: 0 })
      .returning('id');
    if (failed.length === 0) return false;
    await releaseHold(trx, { tenant: input.tenant, reference: `call:${input.callId}`, at: input.at });
    return true;
  });
}

/** Calls of a tenant created since `since` (the portal's "calls today"). */
export async function countCallsSince(db: Knex, tenant: BillingTenant, since: Date): Promise<number> {
  const row = await db('calls')
    .where({ workspace_id: tenant.workspaceId, environment: tenant.environment })
    .where('created_at', '>=', since)
    .count<{ count: string }>({ count: '*' })
    .first();
  return Number(row?.count ?? 0);
}

/** The calls of a tenant (one workspace, one environment). */
export function callsOfTenant(db: Knex, tenant: BillingTenant) {
  return db<CallRow>('calls').where({ workspace_id: tenant.workspaceId, environment: tenant.environment });
}

/**
 * The tenant's calls whose transcript has an entry (said by either side) containing `text`, case-insensitively, as
 * typed (no wildcards). Transcripts are plain jsonb, so this reads them in SQL; newest first, at most `limit`.
 */
export function callsSaying(db: Knex, tenant: BillingTenant, text: string, limit: number) {
  return callsOfTenant(db, tenant)
    .whereRaw(`exists (select 1 from jsonb_array_elements(coalesce(transcript, '[]'::jsonb)) e where e->>'text' ilike ? escape '\\')`, [
      containingPattern(text),
    ])
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);
}

/** What a list of calls may be narrowed by: a line (or the lines a key may see), a status, a direction, when it was created, a number. */
export interface CallFilters {
  lineId?: string;
  lineIds?: readonly string[];
  status?: string;
  direction?: string;
  /** Created at or after. */
  createdFrom?: Date;
  /** Created before. */
  createdBefore?: Date;
  /** The other party's or the line's number: E.164 exactly, or digits it contains (`numberMatch`). */
  number?: NumberMatch;
}

/** A tenant's calls narrowed by `filters`: the query of GET /api/v1/calls and of the portal's calls page. */
export function filteredCallsOf(db: Knex, tenant: BillingTenant, filters: CallFilters) {
  const query = callsOfTenant(db, tenant);
  if (filters.lineId) query.andWhere({ line_id: filters.lineId });
  else if (filters.lineIds) query.whereIn('line_id', [...filters.lineIds]);
  if (filters.status) query.andWhere({ status: filters.status });
  if (filters.direction) query.andWhere('direction', filters.direction);
  if (filters.createdFrom) query.andWhere('created_at', '>=', filters.createdFrom);
  if (filters.createdBefore) query.andWhere('created_at', '<', filters.createdBefore);
  if (filters.number) whereNumberMatches(query, ['from_number', 'to_number'], filters.number);
  return query;
}

/**
 * Hands the line's next inbound call to one wait (`POST /api/v1/lines/{id}/calls/wait`): the oldest
 * inbound call of the tenant's line that no wait has taken, and that is still active or arrived at or
 * after `arrivedSince` (the wait's start: a short call that came and went between two looks is still
 * reported). Stamped `wait_claimed_at` in the same statement; `skip locked` and the `is null` check
 * keep two waits, in any process, from taking the same call.
 */
export async function claimNextInboundCall(
  db: Knex,
  tenant: BillingTenant & { lineId: string },
  window: { arrivedSince: Date; at: Date },
): Promise<CallRow | undefined> {
  const candidate = callsOfTenant(db, tenant)
    .andWhere({ line_id: tenant.lineId, direction: 'inbound' })
    .whereNull('wait_claimed_at')
    .andWhere((q) => q.whereIn('status', [...ACTIVE_CALL_STATUSES]).orWhere('created_at', '>=', window.arrivedSince))
    .orderBy('created_at')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .select('id');
  const [row] = await db<CallRow>('calls')
    .whereIn('id', candidate)
    .whereNull('wait_claimed_at')
    .update({ wait_claimed_at: window.at })
    .returning('*');
  return row as CallRow | undefined;
}

/** Gives a claimed call back to the next wait (its wait's client went away before it was answered). */
export async function releaseInboundClaim(db: Knex, callId: string, claimedAt: Date): Promise<void> {
  await db('calls').where({ id: callId, wait_claimed_at: claimedAt }).update({ wait_claimed_at: null });
}

/** Deletes the call's transcript (the recordings retention: src/domain/recordings/retention.ts); answers whether it had one. */
export async function deleteTranscript(db: Knex | Knex.Transaction, callId: string): Promise<boolean> {
  return (await db('calls').where({ id: callId }).whereNotNull('transcript').update({ transcript: null })) > 0;
}
