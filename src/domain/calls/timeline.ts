import type { Knex } from 'knex';
import { settlementPostingOf, type BillingTenant } from '../billing/ledger';
import { EVENT_POLICIES, RETRY_DELAYS_MS, type EventType } from '../webhooks/events';
import { deliveryAttemptsOfCall, type CallDeliveryAttempt } from '../webhooks/store';
import { isActiveCallStatus } from './rules';
import { callsOfTenant, toCallRecord, type CallRow } from './store';

/*
 * A call's story, as its page tells it (issue 30): what happened, in order, built from what was
 * recorded (the call's row and transcript, the delivery attempts of its events, its ledger
 * posting), never from the Temporal history, so it reads the same for a call ended by the
 * recovery sweeper. A failed delivery says in plain words what failed and what it cost the call.
 */

export type TimelineKind =
  'placed' | 'ringing' | 'answered' | 'said' | 'interrupted' | 'key_press' | 'tool_call' | 'delivery' | 'transfer' | 'ended' | 'charge';

export interface TimelineEntry {
  /** ISO time; null for what is happening now and has no recorded time (an outbound call ringing whose carrier gave none). */
  at: string | null;
  kind: TimelineKind;
  /** One line in plain words. */
  title: string;
  /** What an operator debugging it needs next (a delivery's event, HTTP status, latency and raw error). */
  detail?: string;
  /** Something went wrong here (a failed delivery, a failed tool). */
  failed?: boolean;
  /** The delivery attempt shown, for its link. */
  deliveryId?: string;
}

type CallRecord = ReturnType<typeof toCallRecord>;

export interface CallTimelineFacts {
  call: CallRecord;
  /** When an outbound call started ringing, as its carrier reported it (ISO; null when it never said so). */
  ringingAt?: string | null;
  deliveries: readonly CallDeliveryAttempt[];
  /** The call's charge as posted to the ledger, if settled. */
  charge: { amountCents: number; description: string; at: Date } | null;
}

/** Attempts a retried event gets in all (the first and one after each delay). */
const DELIVERY_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * The words the story uses for the API's values (event types, end causes, call statuses): the reader's own mapping
 * (the portal's is api/portal/labels.ts, its one home), so the story never shows an enum value as its wording.
 */
export interface TimelineWords {
  eventType(type: string): string;
  endCause(cause: string): string;
  callStatus(status: string): string;
}

/** A delivery attempt's error as an operator reads it (src/domain/webhooks/post.ts and attempt.ts write them). */
export function plainDeliveryError(error: string): string {
  const connection = /^connection_error: (.*)$/.exec(error);
  if (connection) {
    const cause = connection[1];
    if (/ECONNREFUSED/.test(cause)) return 'connection refused';
    if (/ECONNRESET|socket hang up/i.test(cause)) return 'the connection was cut';
    if (/ENOTFOUND|EAI_AGAIN/.test(cause)) return 'the host name does not resolve';
    if (/CERT|SSL|TLS/i.test(cause)) return 'the TLS certificate was refused';
    return `could not connect (${cause})`;
  }
  const http = /^http_(\d{3})$/.exec(error);
  if (http) return `your server answered HTTP ${http[1]}`;
  const timeout = /^timeout after (\d+) ms$/.exec(error);
  if (timeout) return `no answer within ${Number(timeout[1]) / 1000} s`;
  if (error.startsWith('egress_refused: '))
    return `the address is refused by the egress policy (${error.slice('egress_refused: '.length)})`;
  const fixed: Record<string, string> = {
    line_released: 'the line was released',
    missing_webhook_url: 'the line has no webhook URL',
    missing_status_callback_url: 'the line has no status callback URL',
    missing_webhook_secret: 'the line has no signing secret',
    attempt_lost: 'the attempt was lost (a worker stopped during it)',
  };
  return fixed[error] ?? error;
}

/** What a failed attempt meant for the call: a `message` turn went unanswered; other events are retried or given up. */
function failureConsequence(attempt: CallDeliveryAttempt): string {
  if (attempt.event_type === 'message') return 'the caller heard silence';
  const policy = EVENT_POLICIES[attempt.event_type as EventType];
  if (!policy?.retry || attempt.error_message === 'line_released') return 'it is not retried';
  return attempt.attempt < DELIVERY_ATTEMPTS ? 'Switchboard retries it' : `given up after ${DELIVERY_ATTEMPTS} attempts`;
}

function deliveryEntry(attempt: CallDeliveryAttempt, words: TimelineWords): TimelineEntry {
  const target = EVENT_POLICIES[attempt.event_type as EventType]?.target;
  const subject = target === 'status_callback' ? 'Status callback' : 'Agent webhook';
  const facts = [
    `${attempt.event_type} event`,
    `attempt ${attempt.attempt}`,
    attempt.http_status === null ? 'no HTTP answer' : `HTTP ${attempt.http_status}`,
    ...(attempt.duration_ms === null ? [] : [`${attempt.duration_ms} ms`]),
    ...(attempt.error_message ? [attempt.error_message] : []),
  ].join(' · ');
  const base = { at: attempt.created_at.toISOString(), kind: 'delivery' as const, detail: facts, deliveryId: attempt.id };
  if (attempt.status === 'failed')
    return {
      ...base,
      failed: true,
      title: `${subject} failed: ${plainDeliveryError(attempt.error_message ?? 'unknown error')}; ${failureConsequence(attempt)}`,
    };
  const event = `the “${words.eventType(attempt.event_type)}” event`;
  if (attempt.status === 'pending') return { ...base, title: `${subject}: ${event} being delivered` };
  return { ...base, title: `${subject} got ${event}` };
}

function transcriptEntries(call: CallRecord): TimelineEntry[] {
  return (call.transcript ?? []).map((entry): TimelineEntry => {
    const who = entry.role === 'user' ? 'The caller' : 'The agent';
    if (entry.kind === 'dtmf') return { at: entry.timestamp, kind: 'key_press', title: `${who} pressed ${entry.text}` };
    if (entry.kind === 'tool' && entry.tool) {
      const { name, error, result } = entry.tool;
      return error === null
        ? { at: entry.timestamp, kind: 'tool_call', title: `The agent called the tool ${name}`, detail: result }
        : { at: entry.timestamp, kind: 'tool_call', title: `The agent's tool ${name} failed: ${error}`, failed: true };
    }
    if (entry.interrupted)
      return {
        at: entry.timestamp,
        kind: 'interrupted',
        title: `Barge-in: the caller talked over the agent and heard only “${entry.text}”`,
      };
    return { at: entry.timestamp, kind: 'said', title: `${who} said “${entry.text}”` };
  });
}

function money(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}

/**
 * The call's story, oldest first. Entries at the same instant keep the order of the call's
 * process (a turn's words before its delivery, the end before the charge).
 */
export function timelineOf({ call, ringingAt, deliveries, charge }: CallTimelineFacts, words: TimelineWords): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  entries.push(
    call.direction === 'inbound'
      ? { at: call.created_at, kind: 'ringing', title: `Ringing: ${call.from_number} called ${call.to_number}` }
      : { at: call.created_at, kind: 'placed', title: `Placed: dialling ${call.to_number} from ${call.from_number}` },
  );
  if (call.direction === 'outbound' && ringingAt) entries.push({ at: ringingAt, kind: 'ringing', title: 'Ringing' });
  else if (call.status === 'ringing' && call.direction === 'outbound') entries.push({ at: null, kind: 'ringing', title: 'Ringing' });
  if (call.started_at) {
    const by = call.answered_by && call.answered_by !== 'unknown' ? ` (by a ${call.answered_by})` : '';
    entries.push({ at: call.started_at, kind: 'answered', title: `Answered${by}` });
  }
  entries.push(...transcriptEntries(call), ...deliveries.map((attempt) => deliveryEntry(attempt, words)));
  if (call.transferred_to) {
    const told = deliveries.find((attempt) => attempt.event_type === 'call_transferred');
    entries.push({
      at: told ? told.created_at.toISOString() : call.ended_at,
      kind: 'transfer',
      title: `Transferred to ${call.transferred_to}`,
    });
  }
  if (call.ended_at && !isActiveCallStatus(call.status)) {
    const cause = call.end_cause ? words.endCause(call.end_cause) : 'no cause recorded';
    const length = call.duration_sec === null ? '' : ` after ${call.duration_sec} s`;
    entries.push({
      at: call.ended_at,
      kind: 'ended',
      title: `Ended${length}: ${cause}`,
      detail: `Status: ${words.callStatus(call.status)}`,
    });
  }
  if (charge)
    entries.push({
      at: charge.at.toISOString(),
      kind: 'charge',
      title: `Charged ${money(charge.amountCents)}`,
      detail: charge.description,
    });
  // A stable sort: entries without a time (happening now) go last.
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => timeOf(a.entry) - timeOf(b.entry) || a.index - b.index)
    .map(({ entry }) => entry);
}

const timeOf = (entry: TimelineEntry) => (entry.at === null ? Number.POSITIVE_INFINITY : Date.parse(entry.at));

/**
 * How long a call's page keeps reloading its live part after the call ended: `call_ended` and the
 * charge are recorded just after the end, and a failed `call_ended` attempt's first retry comes 5 s later.
 */
export const SETTLING_MS = 10_000;

/** Whether the call's story may still change while its page is open (the page stops polling once it cannot). */
export function stillUnfolding(facts: CallTimelineFacts, now: Date): boolean {
  const { call } = facts;
  if (isActiveCallStatus(call.status) || call.ended_at === null) return true;
  if (facts.deliveries.some((attempt) => attempt.status === 'pending')) return true;
  return now.getTime() - Date.parse(call.ended_at) < SETTLING_MS;
}

export type CallTimelineOutcome =
  { ok: true; call: CallRecord; timeline: TimelineEntry[]; unfolding: boolean } | { ok: false; refused: 'not_found' };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The tenant's call `callId` with its story; another tenant's call (or no call) is `not_found`. */
export async function callTimeline(
  db: Knex,
  tenant: BillingTenant,
  callId: string,
  words: TimelineWords,
  /** Where the call's `recording_url` points (`toCallRecord`). */
  publicBaseUrl: string,
  now = new Date(),
): Promise<CallTimelineOutcome> {
  const row: CallRow | undefined = UUID.test(callId) ? await callsOfTenant(db, tenant).where({ id: callId }).first() : undefined;
  if (!row) return { ok: false, refused: 'not_found' };
  const [deliveries, posting] = await Promise.all([
    deliveryAttemptsOfCall(db, tenant, row),
    settlementPostingOf(db, tenant, `call:${row.id}`),
  ]);
  const facts: CallTimelineFacts = {
    call: toCallRecord(row, publicBaseUrl),
    ringingAt: row.ringing_at ? row.ringing_at.toISOString() : null,
    deliveries,
    charge: posting ? { amountCents: -Number(posting.amount_cents), description: posting.description, at: posting.created_at } : null,
  };
  return { ok: true, call: facts.call, timeline: timelineOf(facts, words), unfolding: stillUnfolding(facts, now) };
}
