/**
 * Every patch the workflows check with `patched(id)`, and when its old branch may go. A run that passes a patch
 * records its id in its history (a marker), so an id never changes. A new patch is added here with its removal
 * criterion, and a history that takes its new branch is recorded into test/histories (`npm run histories:record`).
 *
 * Removing a patch takes two releases. Once no run that started before the patch's rollout can still be open (the
 * criterion below; check with `temporal workflow count --query 'WorkflowType="<type>" AND ExecutionStatus="Running"'`
 * filtered to start times before the rollout): replace `patched(ID)` with `deprecatePatch(ID)`, delete the old branch,
 * and delete the histories of that workflow type recorded without the patch that reach it. One release later, once
 * no run that started before that release is open: drop `deprecatePatch` and the id.
 *
 * A call lasts at most the ring and 15 minutes (`RING_TIMEOUT_MS`, `MAX_CALL_DURATION_MS`); a continued call's new run
 * starts past every patch its code has. "Recorded with it" names the histories that carry the marker.
 */
export const patches = {
  /**
   * Calls that start with it run `runCall` (workflows/calls/workflow.ts); histories recorded before it replay
   * `legacyCallWorkflow` (workflows/calls/legacy.ts). What changed: a carrier refusal ends the call instead of being
   * retried for ever, carrier commands are bounded in time, holds and the maximum duration have their own coroutine,
   * the charge is capped at what was held, the history no longer grows with the transcript or the system prompt, and
   * long histories continue as new.
   *
   * Remove: once no call started before `call-workflow-v2` can be open in any deployment (in practice once no
   * deployment runs a pre-v2 worker). Then `deprecatePatch(patches.callV2)`, delete workflows/calls/legacy.ts (with
   * `turnInOneActivity`) and the pre-v2 histories `callWorkflow.{hangup,hosted-control,turns,turns-unpatched,
   * turns-upgraded}.json`, and with them what only pre-v2 calls use: the `recordTranscript` activity (activities/calls.ts)
   * and `writeTranscript`, and the unsequenced transcript (calls from before sequenced transcripts):
   * `appendUnsequencedTranscript`, the `unsequenced` branch of `TranscriptAddition` and `transcriptAppend`
   * (src/domain/calls/store.ts) and its callers (the message turn's `unsequenced` fallback).
   *
   * Recorded with it: callWorkflow.v2-caller-hangs-up-mid-reply, v2-continued-first-run, v2-inbound, v3-*, v4-*, v5-*.
   */
  callV2: 'call-workflow-v2',

  /**
   * Pre-v2 calls that reach a turn with it take it in one local activity (`takeMessageTurn`: record the `message`,
   * deliver it once, speak the reply, append to the transcript) instead of recordMessageEvent → attemptDelivery →
   * [speak] → recordTranscript. Checked only by workflows/calls/legacy.ts: it goes with that file (`callV2`).
   *
   * Recorded with it: callWorkflow.turns, callWorkflow.turns-upgraded.
   */
  turnInOneActivity: 'call-turn-in-one-activity',

  /**
   * Issue 14: a call event is recorded and attempted by a local activity in the workflow task (no workflow per event,
   * no activity task round trip: `publishCallEvent`, workflows/calls/activities.ts); calls without the marker keep the
   * normal activity at the same place.
   *
   * Remove: once no call that started before it is open (16 minutes after the last worker without it stopped); the
   * histories without it are callWorkflow.v2-*.
   *
   * Recorded with it: callWorkflow.v3-events-inline-hangup, v4-turns-deferred-playback, v5-amd-transfer.
   */
  eventsInline: 'call-events-inline',

  /**
   * A turn whose previous reply has no `done` report yet asks the API for the deferred playback reports in a local
   * activity first (no workflow task of its own): the reply has usually played to the end (workflows/calls/turns.ts).
   *
   * Remove: once no call that started before it is open (16 minutes after the last worker without it stopped).
   *
   * Recorded with it: callWorkflow.v4-turns-deferred-playback.
   */
  closeDeferralLocally: 'call-turn-close-playback-deferral',

  /**
   * From it on, a live-control command the carrier refuses answers the request with the refusal (issue 26): 502
   * `carrier_error` naming the provider and its code, or, when the carrier says the call has ended, the answer for an
   * ended call. Before it, a refused press was `pressed: false`, a refused transfer `refused`, and a refused speech
   * ended the call. Checked only once a refusal names its provider (workflows/calls/control.ts).
   *
   * Remove: once no call that started before it is open (16 minutes after the last worker without it stopped).
   *
   * Recorded with it: none yet (no recorded call has a refused control command).
   */
  carrierRefusals: 'call-control-carrier-refusals',

  /**
   * Transfers run from it on (workflows/calls/control.ts, the `transfer` update): histories before it never had one.
   *
   * Remove: once no call that started before it is open (16 minutes after the last worker without it stopped).
   *
   * Recorded with it: callWorkflow.v5-amd-transfer.
   */
  callTransfer: 'call-transfer',

  /**
   * Auto-charges go through a pending attempt recorded first, and are looked up when unanswered (review M8;
   * workflows/billing.ts).
   *
   * Remove the unpatched branch (and prepareAutoCharge, chargeCard, creditAutoRecharge) once no auto-charge run that
   * started before the patch is open: a run exits after an hour idle or a day after a decline, so a day after the last
   * pre-patch worker stopped. The history without it: autoChargeWorkflow.charged.
   *
   * Recorded with it: autoChargeWorkflow.pending-attempt.
   */
  pendingAttempts: 'auto-charge-pending-attempts',

  /**
   * A scheduled close of the spend period runs again an hour after the boundary, when late postings have landed
   * (workflows/billing.ts).
   *
   * Remove the unpatched return once no close started before the patch is open (a close lasts about an hour); the
   * history without it: closeSpendPeriodWorkflow.
   *
   * Recorded with it: closeSpendPeriodWorkflow.scheduled.
   */
  reclose: 'close-spend-period-reclose',

  /**
   * A number held by another line fails the line's provisioning (L19; workflows/lines.ts). Before it, `activateLine`
   * failed for ever, retried without end.
   *
   * Remove: once no provisioning that started before it is open (the query above, `WorkflowType="provisionLineWorkflow"`).
   *
   * Recorded with it: none yet (the recorded provisionings never met a number in use).
   */
  numberInUseFails: 'activate-line-number-in-use-fails',

  /**
   * Issue 29: the transcript says what the caller heard. An interrupted reply's entries are cut to the part that was
   * played (`interrupted: true`; workflows/calls/transcript.ts `cutToHeard`, called where `interrupted` is reported and
   * by a control `speak` that was talked over), and the agent's key presses are entries of their own (`kind: dtmf`,
   * workflows/calls/control.ts). Before it, the whole reply was kept and presses were not recorded.
   *
   * Remove: once no call that started before it is open (16 minutes after the last worker without it stopped).
   *
   * Recorded with it: callWorkflow.v6-hosted-tools.
   */
  transcriptHeard: 'call-transcript-heard',

  /**
   * Hosted calls run the tools their model calls (workflows/calls/tools.ts): each call is an
   * activity, its result goes back to the model in another round of the same turn. Asked only when
   * a model reply called tools, so calls without tools record no marker.
   *
   * Remove the unpatched branch once no call that began before it is open (calls last 15 minutes at most).
   * Recorded with it: callWorkflow.v6-hosted-tools.
   */
  hostedTools: 'hosted-call-tools',

  /**
   * Issue 29: calls of `agent` lines (workflows/calls/agent.ts): the conversation loop takes no turn, each caller
   * sentence goes to the transcript as heard and is kept (the latest 20) for the agent's next `wait`. Asked once per
   * run, only by agent lines' calls, which did not exist before it: no recorded history takes the old branch.
   *
   * Remove: once no call that started before it is open (calls last 15 minutes at most), replace the `patched` call in
   * `isAgentDriven` with `deprecatePatch`, and drop the id a release later.
   * Recorded with it: callWorkflow.v7-agent-line-first-run, v7-agent-line-last-run (the kept sentences carried).
   */
  agentLines: 'agent-line-calls',

  /**
   * Issue 31: a campaign's call answered by a machine leaves its voicemail message (if any) and hangs up
   * (workflows/calls/machine.ts). Asked only by calls placed with `onMachine` and answered by a machine, which did not
   * exist before it: no recorded history takes the old branch.
   *
   * Remove: once no call that started before it is open (calls last 15 minutes at most), replace the `patched` call in
   * `answerMachine` with `deprecatePatch`, and drop the id a release later.
   * Recorded with it: callWorkflow.v8-campaign-voicemail.
   */
  campaignMachine: 'campaign-answering-machine',

  /**
   * Issue 31: a campaign's call that leaves a voicemail message is placed with the carrier's end-of-greeting detection
   * (`detectGreetingEnd` in its input): who answered may come after the answer (`call.machine_detection`, waited for
   * in `whoAnswered`), and the message is spoken once the machine's greeting ended (`call.greeting_ended`, waited for
   * in `answerMachine`, workflows/calls/machine.ts). Asked only by calls placed with `detectGreetingEnd`, which did not
   * exist before it: no recorded history takes the old branch.
   *
   * Remove: once no call that started before it is open (calls last 15 minutes at most), replace both `patched` calls
   * with `deprecatePatch`, and drop the id a release later.
   * Recorded with it: callWorkflow.v9-voicemail-after-greeting.
   */
  voicemailAfterGreeting: 'voicemail-after-greeting',

  /**
   * Issue 31: a campaign's call (placed with `onMachine`) that the carrier's detection says a fax answered
   * (`machine_kind: fax` on `call.answered` or `call.machine_detection`) hangs up at once (`answering_machine`): no
   * disclosure, no voicemail message, no wait for a greeting end that a fax never reports (`answerMachine`,
   * workflows/calls/machine.ts). Before it, such a call waited out `GREETING_END_WAIT` (30 s) and spoke its voicemail
   * message to the fax. Asked only by campaign calls a fax answered: a call without the marker replays as before.
   *
   * Remove: once no call that started before it is open (calls last 15 minutes at most), replace the `patched` call in
   * `faxAnswered` with `deprecatePatch`, and drop the id a release later.
   * Recorded with it: callWorkflow.v13-fax-hung-up.
   */
  faxHangsUp: 'campaign-fax-hangs-up',

  /**
   * Issue 31 (durable at scale): a campaign's dispatcher dials a step's claimed contacts in one local activity
   * (`dialCampaign`: the claim, then each attempt workflow started by the client with a start delay of its place in the
   * pace), then sleeps once until the step's last dial plus a spacing. Before it, the dispatcher started each attempt as a
   * child with a timer between two (five workflow tasks a dial, which held the pace to a task's round trip under load).
   * Dispatcher runs without the marker keep the children; their attempts and calls are unchanged.
   *
   * Remove: once no dispatcher run that started before it is open (a run continues as new past 5,000 events, so an
   * open campaign's old run ends within its next few hundred dials; a paused one waits: check with `temporal workflow
   * count --query 'WorkflowType="campaignWorkflow" AND ExecutionStatus="Running"'`), then `deprecatePatch`, delete the
   * child branch of `campaignWorkflow` and the history campaignWorkflow.json.
   * Recorded with it: campaignWorkflow.dial-batch.
   */
  campaignDialBatch: 'campaign-dial-batch',

  /**
   * Issue 31 (durable at scale, a cheaper dial): a campaign's dispatcher places a step's claimed attempts itself and
   * starts each call's workflow directly (`dialCampaignCalls`, src/domain/campaigns/dial.ts: the call recorded and held,
   * calling hours judged at the instant it is dialled, the start delayed by its place in the pace); the call's workflow,
   * started with `campaignAttempt` in its input, settles the attempt and wakes the campaign when it ends (patch
   * `campaignCallSettles`). Before it, each attempt was a workflow of its own around the call (about 30 history events
   * and two workflow tasks a dial). Dispatcher runs without the marker keep starting attempt workflows, which are unchanged.
   *
   * Remove: once no dispatcher run that started before it is open (see `campaignDialBatch`) and no attempt workflow is
   * (`WorkflowType="campaignAttemptWorkflow" AND ExecutionStatus="Running"`), `deprecatePatch`, then delete
   * `campaignAttemptWorkflow`, `dialCampaign` and the histories campaignWorkflow.dial-batch.json and
   * campaignAttemptWorkflow.json.
   * Recorded with it: campaignWorkflow.dials-calls.
   */
  campaignDialsCalls: 'campaign-dials-calls',

  /**
   * Issue 31: a call started with `campaignAttempt` (see `campaignDialsCalls`) settles its attempt and wakes its campaign
   * in a local activity once it has ended, whatever ended it. Asked only by calls started with `campaignAttempt`, which
   * did not exist before it: no recorded history takes the old branch.
   *
   * Remove: with `campaignDialsCalls`, once no call that started before it is open (calls last 15 minutes at most).
   * Recorded with it: callWorkflow.v10-campaign-call.
   */
  campaignCallSettles: 'campaign-call-settles',

  /**
   * Issue 31 (a cheaper call): the call's state and disclosure records while it goes on (`recordCallState` of ringing,
   * answered and transferred; `recordDisclosurePlayed`) run as local activities in the workflow task, one marker event
   * each, instead of an activity task and a workflow task of their own (about 10 fewer history events an answered call).
   * Asked at the first of them; a call that started before it switches there (the command is new at that point, so
   * nothing replays differently). The end's record, the settlement and transcript appends stay activities.
   *
   * Remove: once no call that started before it is open (calls last 15 minutes at most), `deprecatePatch`, then drop
   * the activity branch a release later.
   * Recorded with it: callWorkflow.v11-records-inline.
   */
  callRecordsInline: 'call-records-inline',

  /**
   * Issue 32: a call that was answered asks for its durable copy once it has ended (`wantCallCopy`, a local activity in
   * its last workflow task: starts `callCopyWorkflow` when there is a recording or transcript to store, or tells a
   * running one to look again). Calls without the marker are copied by the sweeper (`sweepCallCopiesWorkflow`) instead.
   *
   * Remove: once no call that started before it is open (calls last 15 minutes at most), `deprecatePatch`, then drop
   * the id a release later.
   * Recorded with it: callWorkflow.v12-durable-copy.
   */
  callCopy: 'call-durable-copy',

  /**
   * A caller sentence (or transfer outcome) the carrier delivers again, the same event with the same time, is taken
   * once (`CallEvents.repeats`, workflows/calls/events.ts): before it, a redelivered sentence was a second turn, a
   * second `message` and a second pair of transcript entries. Asked only when a redelivery arrives, so a history
   * without one is untouched.
   *
   * Remove: once no call that started before it is open (calls last 15 minutes at most), `deprecatePatch`, then drop
   * the id a release later.
   * Recorded with it: callWorkflow.v14-sentence-redelivered.
   */
  carrierRedeliveryOnce: 'call-carrier-redelivery-once',
} as const;
