import { clearTransferDestination } from '../calls/transfer';
import { findCallById, type CallRow } from '../calls/store';
import { regularKeysOf } from '../keys/store';
import { findLineById } from '../lines/store';
import { sendMessage } from '../messages/send';
import { OutboundRefusedError, type OutboundActor, type OutboundRefusal } from '../outbound/preflight';
import type { LoggedUseCaseDeps } from '../useCaseDeps';

/** What the built-ins need: a database, Temporal and the task queue (an SMS starts its workflow), a clock, a log. */
export type BuiltInDeps = Omit<LoggedUseCaseDeps, 'config'> & { config: Pick<LoggedUseCaseDeps['config'], 'taskQueue'> };
import { declaredTool, isBuiltIn } from './declarations';

/**
 * The built-in tools that go through the API's own use cases (transfer's destination, an SMS to
 * the caller), so a model meets exactly the refusals a customer's program would. They act as the
 * key that placed the call (its line restrictions and spend cap count), or, on an inbound call, as
 * the line's owner with no key, as the call itself does. `hang_up` and `press_digits` need no
 * clearing: the call's workflow performs them as it performs `POST /calls/{id}/hangup` and `/press`.
 */

/** A built-in's answer: done (with what the model is told), or refused with the API's code. */
export type BuiltInOutcome = { ok: true; result: Record<string, unknown> } | { ok: false; error: string };

async function actorOfCall(deps: BuiltInDeps, call: CallRow, now: Date): Promise<OutboundActor | { refused: string }> {
  const tenant = { workspaceId: call.workspace_id, environment: call.environment };
  const line = await findLineById(deps.db, call.line_id);
  if (!line) return { refused: 'line_not_found' };
  if (!call.actor_key_id) return { ...tenant, userId: line.user_id, key: { id: null, line_id: null, grant_numbers: null } };
  const key = await regularKeysOf(deps.db, tenant).where({ id: call.actor_key_id }).first();
  const lapsed = !key || (key.revoked_at !== null && key.revoked_at <= now) || (key.expires_at !== null && key.expires_at <= now);
  if (lapsed) return { refused: 'key_revoked' };
  return { ...tenant, userId: key.user_id, key: { id: key.id, line_id: key.line_id, grant_numbers: key.grant_numbers } };
}

/** The API's code of a refusal, with its detail where the model can act on it. */
function refusalText(refusal: OutboundRefusal): string {
  if (refusal.code === 'invalid_field') return `invalid_field: ${refusal.field}: ${refusal.message}`;
  if (refusal.code === 'hold_refused') return refusal.hold.code;
  return refusal.code;
}

async function asBuiltIn(work: () => Promise<BuiltInOutcome>): Promise<BuiltInOutcome> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof OutboundRefusedError) return { ok: false, error: refusalText(err.refusal) };
    throw err;
  }
}

/** The remote party of a call: whom an SMS "to the caller" goes to. */
function remoteNumber(call: CallRow): string {
  return call.direction === 'outbound' ? call.to_number : call.from_number;
}

/**
 * `transfer_call`: the destination must be one the declaration lists, then it is cleared as
 * `POST /calls/{id}/transfer` clears it (E.164, not a party, opt-outs, consent, zone, fraud).
 */
export async function clearToolTransfer(deps: BuiltInDeps, callId: string, destination: unknown): Promise<BuiltInOutcome> {
  return asBuiltIn(async () => {
    const call = await findCallById(deps.db, callId);
    if (!call) return { ok: false, error: 'call_not_found' };
    const declared = declaredTool(call.tools ?? [], 'transfer_call');
    const destinations = declared && isBuiltIn(declared) ? (declared.destinations ?? []) : [];
    if (typeof destination !== 'string' || !destinations.includes(destination))
      return { ok: false, error: 'invalid_field: destination: Must be one of the numbers the tool lists' };
    const actor = await actorOfCall(deps, call, deps.now());
    if ('refused' in actor) return { ok: false, error: actor.refused };
    const to = await clearTransferDestination(deps.db, actor, call, destination);
    return { ok: true, result: { to_number: to } };
  });
}

/** `send_sms`: a text to the caller from the line, as `POST /messages` sends it (window, opt-outs, hold). */
export async function sendToolSms(deps: BuiltInDeps, callId: string, text: unknown): Promise<BuiltInOutcome> {
  return asBuiltIn(async () => {
    const call = await findCallById(deps.db, callId);
    if (!call || !declaredTool(call.tools ?? [], 'send_sms')) return { ok: false, error: 'no tool named send_sms' };
    if (typeof text !== 'string') return { ok: false, error: 'invalid_field: text: Required' };
    const actor = await actorOfCall(deps, call, deps.now());
    if ('refused' in actor) return { ok: false, error: actor.refused };
    const message = await sendMessage(deps, actor, {
      lineId: call.line_id,
      to: { value: remoteNumber(call), field: 'to' },
      text: { value: text, field: 'text' },
    });
    return { ok: true, result: { message_id: message.id, status: message.status } };
  });
}
