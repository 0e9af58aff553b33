import { ActivityFailure, condition, uuid4 } from '@temporalio/workflow';
import type { ModelToolCall } from '../../src/adapters/model/port';
import type { ToolCallRecord } from '../../src/domain/calls/store';
import { isBuiltInName, parseArguments } from '../../src/domain/tools/rules';
import { DTMF_DIGITS } from '../definitions/callControl';
import { keypad, publishCallEvent, tools } from './activities';
import { transferTo } from './control';
import type { CallState } from './state';

/** Before `hang_up` or `transfer_call` act, how long the reply in play (a goodbye) may play before they act anyway. */
const REPLY_PLAYBACK = '30 seconds';

/** What one tool call came to: what the model is told, and whether the conversation goes on with Switchboard. */
interface ToolRun {
  result: string;
  error: string | null;
  /** The call was transferred or is being hung up: no further model round. */
  handsOff?: boolean;
}

const ran = (result: Record<string, unknown>, handsOff = false): ToolRun => ({ result: JSON.stringify(result), error: null, handsOff });
const refused = (error: string): ToolRun => ({ result: JSON.stringify({ error }), error });

/**
 * Runs the tools a hosted call's model called at the end of a reply, in order (issue 29 item 3):
 * a customer's function through its endpoint, the built-ins on the call itself. Each call and its
 * result go into the transcript (`kind: tool`, and so into the model's next round) and a
 * `tool_called` event. A failure is a result the model reads, never a stuck call. Returns whether
 * the model may take another round (false once the call is handed off or ended).
 */
export async function runToolCalls(call: CallState, calls: readonly ModelToolCall[]): Promise<boolean> {
  const { input, transcript } = call;
  for (const toolCall of calls) {
    if (call.ended() || call.handedOver()) return false;
    const invocationId = uuid4();
    const startedAt = Date.now();
    const run = await runOne(call, toolCall, invocationId);
    const record: ToolCallRecord = {
      id: toolCall.id,
      name: toolCall.name,
      arguments: argumentsOf(toolCall),
      result: run.result,
      error: run.error,
    };
    transcript.unwritten.push(transcript.add({ role: 'assistant', kind: 'tool', text: toolCall.name, tool: record, timestamp: startedAt }));
    await transcript.flush();
    await publishCallEvent(
      input,
      'tool_called',
      { tool_call: record, duration_ms: Date.now() - startedAt, timestamp: startedAt },
      `tool-${invocationId}`,
    );
    if (run.handsOff) return false;
  }
  return !call.ended() && !call.handedOver();
}

async function runOne(call: CallState, toolCall: ModelToolCall, invocationId: string): Promise<ToolRun> {
  const { input } = call;
  const args = argumentsOf(toolCall);
  try {
    if (!isBuiltInName(toolCall.name)) {
      const outcome = await tools.callFunctionTool({
        callId: input.callId,
        toolCallId: toolCall.id,
        name: toolCall.name,
        arguments: toolCall.arguments,
        deliveryId: `tool_${invocationId}`,
      });
      return { result: outcome.result, error: outcome.error };
    }
    switch (toolCall.name) {
      case 'hang_up':
        await hangUpAfterGoodbye(call);
        return ran({ hung_up: true }, true);
      case 'press_digits': {
        const digits = typeof args.digits === 'string' ? args.digits : '';
        if (!DTMF_DIGITS.test(digits)) return refused('invalid_field: digits: Must be 0-9, *, # or w');
        const outcome = await keypad.sendDigits(call.carrierCallId!, digits);
        return outcome.pressed
          ? ran({ pressed: true, digits })
          : refused(outcome.refusal?.callNotActive ? 'call_not_active' : 'carrier_error');
      }
      case 'send_sms': {
        const outcome = await tools.sendToolSms({ callId: input.callId, text: args.text });
        return outcome.ok ? ran(outcome.result) : refused(outcome.error);
      }
      case 'transfer_call': {
        const cleared = await tools.clearToolTransfer({ callId: input.callId, destination: args.destination });
        if (!cleared.ok) return refused(cleared.error);
        // What the model said before it ("let me put you through") is heard first.
        await replyHeard(call);
        if (call.ended()) return refused('call_ended');
        const transfer = await transferTo(call, cleared.result.to_number as string);
        return transfer.transferred
          ? ran({ transferred: true, to_number: transfer.to_number }, true)
          : refused(transfer.failure_reason ?? 'refused');
      }
    }
  } catch (err) {
    // The attempt was lost (a worker crashed, the carrier stayed unreachable): the model hears so.
    if (!(err instanceof ActivityFailure)) throw err;
    return refused('the tool could not be run (its attempt was lost); it may or may not have taken effect');
  }
}

/** The model's arguments as an object ({} when they are not one: each tool then says what is missing). */
function argumentsOf(toolCall: ModelToolCall): Record<string, unknown> {
  const parsed = parseArguments(toolCall.arguments);
  return parsed.ok ? parsed.value : {};
}

/** The reply in play is heard to its end, unless the caller talks or the call ends first (at most 30 s). */
async function replyHeard(call: CallState): Promise<void> {
  const { events, speech } = call;
  const speeches = [...speech.currentSpeeches];
  await condition(() => speeches.every((id) => events.finished(id)) || call.ended() || events.sentences.length > 0, REPLY_PLAYBACK);
}

/** `hang_up`: the goodbye is heard, then the call ends. */
async function hangUpAfterGoodbye(call: CallState): Promise<void> {
  await replyHeard(call);
  call.requestEnd('agent_hangup');
}
