import crypto from 'node:crypto';
import type { CallInput } from '../../../workflows/definitions/calls';
import { placeHold } from '../billing/holds';
import { oneMinuteReserveCents, zoneOf } from '../billing/pricing';
import { outboundPreflight, refuseOutbound, type OutboundActor } from '../outbound/preflight';
import type { LoggedUseCaseDeps, WithinRecording } from '../useCaseDeps';
import { conversationBeginMessage, conversationSystemPrompt } from './conversation';
import { refuseOutsideCallingHours } from '../callingHours/refusal';
import { blockedAsFraud } from './fraud';
import { fillVariables } from './personalization';
import { toolDeclarationProblems } from '../tools/declarations';
import type { ToolDeclaration } from '../tools/declarations';
import { toolsColumn } from '../tools/store';
import type { LineRow } from '../lines/store';
import type { Db } from '../../platform/db/knex';
import { startCallWorkflow } from './start';
import { callOpening, insertCall, LineBusyError, type CallRow } from './store';

/** A conversation call: the service talks, with a system prompt built from the topic. */
export interface ConversationOptions {
  topic: string;
  beginMessage: string | null;
  maxDurationSec: number | null;
}

export interface PlaceCallRequest {
  lineId: string;
  /** As given; the preflight checks it is E.164. */
  toNumber: string;
  conversation: ConversationOptions | null;
  /** Detect who answers (`machine_detection: detect`): the record and `call_started` say (`answered_by`). */
  machineDetection?: boolean;
  /** Fill the `{{name}}` placeholders of the call's system prompt and begin message (src/domain/calls/personalization.ts). */
  variables?: Record<string, string>;
  /** Kept on the call and echoed in every event of it. */
  metadata?: Record<string, string>;
  /** The tools this call's model may call, instead of the line's (src/domain/tools/rules.ts). */
  tools?: ToolDeclaration[];
  /** A campaign's call: what to do when a machine answers (leave this message, if any, then hang up). */
  onMachine?: CallInput['onMachine'];
}

/**
 * Places an outbound call. Refuses (`OutboundRefusedError`) in a fixed order, each check only
 * after the previous passed: the outbound preflight (number, line, `line_no_webhook`,
 * `number_opted_out`, `consent_required`), the `variables` (422 `variables.<name>`: they depend on
 * the line's texts, so they are checked once the line is known), the call's own `tools` (422
 * `tools.<n>.<field>`), then in one transaction `call_in_progress` (the
 * line's one active call), `m3_fraud_block`, `outside_calling_hours` (after the permanent refusals:
 * only this one is answered differently later), and the one-minute reservation. Then the call's
 * workflow dials; a start that did not happen fails the call (`StartCompensatedError`).
 */
export async function placeCall(
  deps: LoggedUseCaseDeps,
  actor: OutboundActor,
  request: PlaceCallRequest,
  withinRecording?: WithinRecording<CallRow>,
): Promise<CallRow> {
  const { row, input } = await recordCall(deps, actor, request, { callId: crypto.randomUUID(), withinRecording });
  await startCallWorkflow(deps, input, 'could not start the call workflow');
  deps.log.info({ call_id: row.id, line_id: row.line_id, zone: row.zone }, 'call placed');
  return row;
}

/**
 * Everything `placeCall` does but start the call's workflow: the refusals, the call's row and its
 * one-minute hold, under `callId`. Answers the row and the call workflow's input; a campaign starts
 * that workflow itself (as its child, workflow id = call id).
 */
export async function recordCall(
  deps: LoggedUseCaseDeps,
  actor: OutboundActor,
  request: PlaceCallRequest,
  { callId, withinRecording }: { callId: string; withinRecording?: WithinRecording<CallRow> },
): Promise<{ row: CallRow; input: CallInput }> {
  const destination = { value: request.toNumber, field: 'to_number' };
  const { to, line } = await outboundPreflight(deps.db, actor, {
    channel: 'call',
    lineId: request.lineId,
    to: destination,
    now: deps.now(),
  });
  const { conversation } = request;
  // A conversation call is a hosted conversation whatever the line's mode, and billed as one.
  const mode = conversation ? 'hosted' : line.mode;
  const filling = fillVariables(
    {
      system_prompt: conversation ? conversationSystemPrompt(conversation.topic) : line.system_prompt,
      begin_message: conversation ? (conversation.beginMessage ?? conversationBeginMessage(conversation.topic)) : line.begin_message,
    },
    request.variables,
  );
  if (!filling.ok) refuseOutbound({ code: 'invalid_field', field: filling.field, message: filling.message });
  const [toolProblem] = await toolDeclarationProblems(deps.config, actor.environment, request.tools);
  if (toolProblem) refuseOutbound({ code: 'invalid_field', ...toolProblem });
  const { system_prompt: systemPrompt, begin_message: beginMessage } = filling.texts;
  const metadata = request.metadata && Object.keys(request.metadata).length > 0 ? request.metadata : null;
  const zone = zoneOf(to);
  const reserve = oneMinuteReserveCents(mode, zone);
  const now = deps.now();
  const row = await deps.db.transaction(async (trx) => {
    let inserted: CallRow;
    try {
      inserted = await insertCall(trx, {
        id: callId,
        workspace_id: actor.workspaceId,
        environment: actor.environment,
        line_id: line.id,
        actor_key_id: actor.key.id,
        direction: 'outbound',
        from_number: line.phone_number,
        to_number: to,
        status: 'initiated',
        mode,
        zone,
        system_prompt: systemPrompt,
        begin_message: beginMessage,
        topic: conversation?.topic ?? null,
        max_duration_sec: conversation?.maxDurationSec ?? null,
        metadata,
        tools: toolsColumn(request.tools ?? line.tools),
        created_at: now,
      });
    } catch (err) {
      if (err instanceof LineBusyError) refuseOutbound({ code: 'call_in_progress' });
      throw err;
    }
    if (await blockedAsFraud(trx, actor, to)) refuseOutbound({ code: 'm3_fraud_block' });
    await refuseOutsideCallingHours(trx, actor, to, (deps.callingHoursNow ?? deps.now)());
    const hold = await placeHold(trx, { tenant: actor, keyId: actor.key.id, reference: `call:${callId}`, amountCents: reserve, at: now });
    if (!hold.ok) refuseOutbound({ code: 'hold_refused', hold: hold.refusal });
    await withinRecording?.(trx, inserted);
    return inserted;
  });

  return {
    row,
    input: await callInputOf(deps.db, row, line, { machineDetection: request.machineDetection === true, onMachine: request.onMachine }),
  };
}

/**
 * The call workflow's input for a recorded outbound call: from its row (the texts as recorded, with
 * the variables filled in, not the line's: the line may be edited mid-call) and its line's opening.
 * Rebuilt alike when a campaign's attempt finds its call already recorded.
 */
export async function callInputOf(
  db: Db,
  row: CallRow,
  line: LineRow,
  { machineDetection, onMachine }: { machineDetection: boolean; onMachine?: CallInput['onMachine'] },
): Promise<CallInput> {
  return {
    callId: row.id,
    workspaceId: row.workspace_id,
    environment: row.environment,
    lineId: row.line_id,
    keyId: row.actor_key_id,
    direction: 'outbound',
    from: row.from_number,
    to: row.to_number,
    mode: row.mode,
    zone: row.zone,
    reservePerMinuteCents: oneMinuteReserveCents(row.mode, row.zone),
    ...(machineDetection ? { machineDetection: true } : {}),
    ...(onMachine ? { onMachine } : {}),
    // A message left on a machine is spoken after its greeting (the beep): the carrier is asked to report that end.
    ...(machineDetection && onMachine?.voicemailMessage ? { detectGreetingEnd: true } : {}),
    ...(row.metadata ? { metadata: row.metadata } : {}),
    ...(await callOpening(db, line)),
    systemPrompt: row.system_prompt,
    beginMessage: row.begin_message,
    // A conversation call (a topic) talks in any language, up to its own maximum duration.
    ...(row.topic !== null
      ? {
          language: 'multi',
          languagePinned: false,
          ...(row.max_duration_sec ? { maxDurationMs: row.max_duration_sec * 1000 } : {}),
        }
      : {}),
  };
}
