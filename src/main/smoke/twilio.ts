import { closeLoop, LOOP_OPTIONAL, LOOP_SETTINGS, onCall, openLoop, recordedCall, speakFully } from './loop';
import { expectThat, type Check, type ProviderKit } from './runner';
import {
  answeredByOf,
  deleteRecordingAtTwilio,
  legsOf,
  recordingOfLeg,
  RefusingNumber,
  twilioClient,
  twilioRefusal,
  type TwilioSession,
} from './twilioSide';
import { smsCheck } from './twilioSms';
import { refetchCheck, transfersCheck } from './twilioTransfers';
import { voicesCheck } from './twilioVoices';
import { leaveVoicemail } from './voicemail';

/**
 * `npm run smoke -- twilio`: the Twilio scenarios of the carrier review's "what would settle the
 * untested rows", against the operator's live deployment and Twilio account, on the loop of two
 * lines (src/main/smoke/loop.ts). No person has to answer: line B answers line A's calls.
 */

const MACHINE_ANSWERS = ['human', 'machine', 'unknown'];

const amdCheck: Check<TwilioSession> = {
  id: 'amd',
  title: 'Outbound call with answering-machine detection',
  budgetMs: 3 * 60_000,
  async run(session) {
    return onCall(
      session,
      async (pair) => {
        const said = String(pair.answeredBy);
        expectThat(MACHINE_ANSWERS.includes(said), `call_started carried answered_by ${said}, not human, machine or unknown`);
        const call = await session.api.call(pair.a);
        expectThat(call.answered_by === said, `the call record says answered_by ${call.answered_by}, call_started said ${said}`);
        const { a } = await legsOf(session.twilio, session.a, session.b, pair.startedAt);
        const twilioSays = answeredByOf(a.answeredBy);
        expectThat(twilioSays === said, `Twilio's AnsweredBy is ${a.answeredBy} (${twilioSays}), Switchboard reported ${said}`);
        await speakFully(session, pair.a, 'Machine detection is done.');
        return `answered_by ${said} (Twilio AnsweredBy ${a.answeredBy}), answered ${Math.round((Date.parse(call.started_at ?? '') - pair.startedAt) / 1000)} s after dialling; speech played after it`;
      },
      { machineDetection: true },
    );
  },
};

const voicemailCheck: Check<TwilioSession> = {
  id: 'voicemail',
  title: "A campaign's voicemail is left after a mailbox's greeting (DetectMessageEnd, asynchronous)",
  budgetMs: 6 * 60_000,
  async run(session, log) {
    const left = await leaveVoicemail(session, log);
    const { a } = await legsOf(session.twilio, session.a, left.mailbox, left.startedAt);
    expectThat(a.answeredBy?.startsWith('machine_end_'), `Twilio's AnsweredBy of A's leg is ${a.answeredBy}, not machine_end_*`);
    return `Twilio heard the greeting end (${a.answeredBy}); the mailbox heard the whole message, its greeting never talked over`;
  },
};

const recordingCheck: Check<TwilioSession> = {
  id: 'inbound-recording',
  title: 'An inbound call with recording gets its recording_url (and the outbound one too)',
  budgetMs: 5 * 60_000,
  async run(session) {
    // Twilio reports a recording once it is processed, after the call ended.
    const {
      pair,
      recorded: [inbound, outbound],
    } = await recordedCall(session, ['b', 'a'], 3 * 60_000);
    // Switchboard serves each (its own recording_url, with the key), and Twilio holds each leg's.
    await Promise.all([session.api.servedRecording(inbound), session.api.servedRecording(outbound)]);
    const { a, b } = await legsOf(session.twilio, session.a, session.b, pair.startedAt);
    const [onB, onA] = await Promise.all([recordingOfLeg(session.twilio, b.sid), recordingOfLeg(session.twilio, a.sid)]);
    expectThat(onB.callSid === b.sid, `B's recording ${onB.sid} belongs to Twilio call ${onB.callSid}, not B's leg ${b.sid}`);
    expectThat(onA.callSid === a.sid, `A's recording ${onA.sid} belongs to Twilio call ${onA.callSid}, not A's leg ${a.sid}`);
    expectThat(onB.status === 'completed' && onB.seconds > 0, `B's recording ${onB.sid} is ${onB.status}, ${onB.seconds} s`);
    session.recordings = [onB.url, onA.url];
    return `inbound ${onB.sid} (${onB.seconds} s, ${onB.status}) and outbound ${onA.sid} (${onA.seconds} s) reached recording_url`;
  },
};

const deleteRecordingCheck: Check<TwilioSession> = {
  id: 'delete-recording',
  title: "The run's recordings are deleted at Twilio as a workspace that deletes the carrier's copy has them deleted",
  budgetMs: 5 * 60_000,
  optIn: {
    name: 'SMOKE_DELETE_RECORDING',
    what: "`yes` deletes the recordings the inbound-recording check made, at Twilio, through the worker's own deleteRecording",
  },
  async run(session) {
    // The inbound-recording check's recordings; without them (not selected, or failed), a recorded call of its own.
    if (!session.recordings) {
      const { pair } = await recordedCall(session, ['a'], 3 * 60_000);
      const { a } = await legsOf(session.twilio, session.a, session.b, pair.startedAt);
      session.recordings = [(await recordingOfLeg(session.twilio, a.sid)).url];
    }
    const deleted: string[] = [];
    for (const recordingUrl of session.recordings) deleted.push(await deleteRecordingAtTwilio(session.twilio, session.env, recordingUrl));
    return `deleted ${deleted.join(' and ')} at Twilio; deleting each again succeeded`;
  },
};

export const twilioKit: ProviderKit<TwilioSession> = {
  provider: 'twilio',
  settings: [
    ...LOOP_SETTINGS,
    {
      name: 'TWILIO_LIVE_ACCOUNT_SID',
      what: "the deployment's live Twilio account (AC…), to read the calls, recordings and messages on Twilio's side",
    },
    { name: 'TWILIO_LIVE_AUTH_TOKEN', what: "that account's auth token" },
  ],
  optional: [
    ...LOOP_OPTIONAL,
    {
      name: 'SMOKE_TWILIO_REFUSING_NUMBER',
      what: 'a number that refuses calls (busy or no answer), the failed-transfer destination; without it the kit buys one for the run',
    },
  ],
  // `refetch` last: Twilio's Call Events of the transfers' call are readable 15 minutes after it.
  checks: [amdCheck, voicemailCheck, transfersCheck, recordingCheck, deleteRecordingCheck, voicesCheck, smsCheck, refetchCheck],
  costs:
    'two US local numbers for the lines (bought and released; Twilio bills each number a month at purchase), a third for the voicemail ' +
    'check’s mailbox, a fourth one as the refusing ' +
    'transfer destination unless SMOKE_TWILIO_REFUSING_NUMBER is set, about 10 short calls between the two lines (two legs each, ' +
    'ConversationRelay minutes, recordings) and one SMS; the lines are billed to the workspace like any call',
  async open(env, log) {
    const client = twilioClient(env);
    // B greets, so that machine detection hears a person: a short word, then silence.
    const loop = await openLoop(env, log, () => twilioRefusal(client, env.TWILIO_LIVE_ACCOUNT_SID!.trim()), { greeting: 'Hello.' });
    return {
      ...loop,
      twilio: client,
      refusing: new RefusingNumber(client, loop.receiver, env.SMOKE_TWILIO_REFUSING_NUMBER?.trim() || undefined),
    };
  },
  async close(session, log) {
    const problems = await closeLoop(session, log);
    const refusing = await session.refusing.release();
    return refusing ? [...problems, refusing] : problems;
  },
};
