import { allHandlersFinished, CancellationScope, condition, ContinueAsNew, continueAsNew, patched } from '@temporalio/workflow';
import type { CampaignAttemptInput } from '../definitions/campaigns';
import type { CallInput, CallResult } from '../definitions/calls';
import { patches } from '../patches';
import { campaigns, copies, publishCallEvent, records } from './activities';
import { keepForAgent } from './agent';
import { answer, claim, dial, ring } from './connect';
import { acceptControl, hangUpWhenAsked, listen } from './control';
import { legacyCallWorkflow } from './legacy';
import { answerMachine, detectedAfterAnswer, detectionFollows, faxAnswered } from './machine';
import { endTalk, keepFunded } from './settle';
import { CallState, type CallContinuation } from './state';
import { actOnRelayEnd, startRelay, takeTurn } from './turns';

/**
 * One call, inbound or outbound, from dialling (or answering) to settlement (workflow id = call
 * id). Outbound calls have the first minute held by the API; inbound calls hold it before
 * answering. Each further minute is held before it starts; a refused extension, the maximum
 * duration or a carrier refusal ends the call. The end settles the per-second charge (never more
 * than was held), once. Calls from before `patches.callV2` (workflows/patches.ts: what changed, and
 * when the legacy path goes) replay `legacyCallWorkflow`.
 */
export async function callWorkflow(input: CallInput, continued?: CallContinuation): Promise<CallResult> {
  if (!continued && !patched(patches.callV2)) return legacyCallWorkflow(input);
  const result =
    input.campaignAttempt && patched(patches.campaignCallSettles)
      ? await settlingAttempt(input.campaignAttempt, () => runCall(input, continued))
      : await runCall(input, continued);
  // An answered call's recording and transcript go to the operator's store (workflows/recordings.ts).
  if (result.status === 'completed' && patched(patches.callCopy)) await copies.wantCallCopy(input.callId);
  return result;
}

/**
 * A campaign's call (started by its dispatcher, src/domain/campaigns/dial.ts): once it has ended, however it ended, its
 * attempt is settled and its campaign woken. A run that continues as new settles nothing: its last run does.
 */
async function settlingAttempt(attempt: CampaignAttemptInput, call: () => Promise<CallResult>): Promise<CallResult> {
  let result: CallResult;
  try {
    result = await call();
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    // A call workflow that failed still leaves its row to say how the call ended (and a cancelled one is settled too).
    await CancellationScope.nonCancellable(() => campaigns.settleCampaignCall(attempt));
    throw err;
  }
  // A fax hung up on ended `answering_machine` as a voicemail left would: the settlement is told no message was left.
  await campaigns.settleCampaignCall(result.machineKind ? { ...attempt, machineKind: result.machineKind } : attempt);
  return result;
}

/**
 * The call's story. The phases live in connect.ts, turns.ts, control.ts and settle.ts around
 * one CallState. From the answer on, coroutines run beside the conversation (holds, hang-up,
 * control requests, the audio relay), so the talking part stays here, step for step, as the
 * recorded histories expect it: moving an `await` into a helper would reorder commands.
 */
async function runCall(input: CallInput, carried: CallContinuation | undefined): Promise<CallResult> {
  const call = new CallState(input, carried);
  listen(call);
  acceptControl(call);

  // Dial or answer, and ring (a continued run is already talking).
  if (!carried) {
    const endedUnanswered =
      (await claim(call)) ?? (input.direction === 'inbound' ? await answer(call) : ((await dial(call)) ?? (await ring(call))));
    if (endedUnanswered) return endedUnanswered;
  }
  call.status = 'in_progress';
  // Beside the conversation, whatever it is doing: hold each next minute (or end the call at a
  // refusal or the maximum duration), and hang up as soon as an end is requested.
  void keepFunded(call);
  void hangUpWhenAsked(call);

  if (!carried) {
    // Who answered, when machine detection was asked (a carrier that did not say: `unknown`); with end-of-greeting
    // detection the carrier may say it after the answer.
    const reported = call.events.answered?.answered_by ?? 'unknown';
    const answeredBy = input.machineDetection ? (detectionFollows(call) ? await detectedAfterAnswer(call) : reported) : null;
    await records.recordCallState(input.callId, {
      status: call.status,
      startedAt: call.answeredAt!,
      ...(answeredBy ? { answeredBy } : {}),
    });
    const started = { direction: input.direction, from_number: input.from, to_number: input.to, answered_by: answeredBy };
    await publishCallEvent(input, 'call_started', started);
    // A campaign's call that reached a machine leaves its message (after any disclosure) and ends: no begin message. A
    // fax hears nothing: neither the disclosure nor a message.
    const onMachine = answeredBy === 'machine' ? input.onMachine : undefined;
    const fax = onMachine ? faxAnswered(call) : false;
    if (input.disclosure && !fax && (await call.say(input.disclosure.message, call.answeredAt!))) {
      await records.recordDisclosurePlayed(input, input.disclosure.id);
    }
    if (onMachine) await answerMachine(call, onMachine, fax);
    if (input.beginMessage) await call.say(input.beginMessage, call.answeredAt!);
    await call.transcript.flush();
    if (input.mode === 'audio' && input.audioHandlerUrl) startRelay(call, input.audioHandlerUrl);
  }

  // Talk, turn by turn, until the call ends; a long history goes on in a fresh run.
  for (;;) {
    await condition(() => call.ended() || call.relayWaiting() || call.turnWaiting() || call.continueDue());
    if (call.ended()) {
      // The caller's last words before the end are in an agent line's transcript too.
      if (call.agentDriven) await keepForAgent(call);
      return endTalk(call);
    }
    if (call.relayWaiting()) {
      actOnRelayEnd(call);
      continue;
    }
    if (!call.continueDue() && call.agentDriven) {
      await keepForAgent(call);
      continue;
    }
    if (!call.continueDue()) {
      // Woken for the caller's next sentence. Turns are numbered by the caller's sentences so far, this one included.
      const utterance = call.events.sentences.shift()!;
      call.sentencesTaken += 1;
      const turn = call.sentencesTaken;
      // Audio lines carry their own conversation over the relay; a transferred call is not ours to talk on.
      if (input.mode === 'audio' || call.handedOver()) continue;
      await takeTurn(call, utterance, turn);
      continue;
    }
    // Continue as new once nothing is in flight: control requests answered, the transcript
    // written, no hold being extended.
    await call.transcript.flush();
    await condition(() => call.ended() || !call.continueDue() || (allHandlersFinished() && !call.funding.extending));
    if (call.ended() || call.transcript.unwritten.length > 0 || !call.continueDue() || !allHandlersFinished() || call.funding.extending)
      continue;
    // What only the start needed stays out of every later run's input.
    return continueAsNew<typeof callWorkflow>({ ...input, systemPrompt: null, disclosure: null, beginMessage: null }, call.continuation());
  }
}
