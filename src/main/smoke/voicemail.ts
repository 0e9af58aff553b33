import { heard, type ActiveLine, type Loop } from './loop';
import { eventually, expectThat, fail } from './runner';
import type { components } from '../../../sdk/client';

/**
 * The `voicemail` check of the carrier runs: a campaign on line A with `answering_machine: voicemail` calls a third
 * line, M, that answers like a mailbox (a long greeting, then silence), so the carrier's end-of-greeting detection
 * (Twilio's DetectMessageEnd, Telnyx's `greeting_end`) must hear a machine and its greeting's end before A speaks.
 * What only a real account proves (docs/decisions/campaigns.md, "Voicemail after the beep on every carrier").
 */

/** Long enough that detection hears a machine (Twilio: more than 2.4 s of speech), then nothing: a mailbox's greeting. */
export const MAILBOX_GREETING =
  'Hello, you have reached the Switchboard smoke kit mailbox. Nobody can take your call right now. ' +
  'Please leave your message after the tone, and we will call you back as soon as we can.';
/** Its first and last distinctive words show the mailbox heard it whole. */
export const VOICEMAIL_MESSAGE =
  'Tangerine. This is the smoke kit leaving a voicemail after the greeting. The last word of it is pineapple.';
const FIRST_WORD = 'tangerine';
const LAST_WORD = 'pineapple';

type ContactResult = components['schemas']['CampaignContactResult'];

export interface VoicemailLeft {
  /** A's call (the campaign's). */
  callId: string;
  mailbox: ActiveLine;
  startedAt: number;
}

/**
 * Makes the mailbox line (released with the loop's lines), runs the one-contact campaign and checks what Switchboard
 * says: outcome `voicemail`, the call answered by a machine and ended `answering_machine`, the message heard whole by
 * the mailbox, its greeting never talked over (no `interrupted`).
 */
export async function leaveVoicemail(loop: Loop, log: (line: string) => void): Promise<VoicemailLeft> {
  const { line, secret } = await loop.api.createLine({
    name: `smoke mailbox ${new Date().toISOString()}`,
    mode: 'webhook',
    webhook_url: loop.receiver.webhookUrl,
    begin_message: MAILBOX_GREETING,
  });
  loop.extraLines.push(line.id);
  loop.receiver.addLine(line.id, secret);
  const mailbox = await loop.api.lineActive(line.id);
  log(`mailbox line ${mailbox.id} is ${mailbox.phone_number}`);

  const startedAt = Date.now();
  const { data } = await loop.api.client.POST('/api/v1/campaigns', {
    body: {
      name: `smoke voicemail ${new Date().toISOString()}`,
      line_ids: [loop.a.id],
      contacts: [{ to_number: mailbox.phone_number }],
      answering_machine: { action: 'voicemail', voicemail_message: VOICEMAIL_MESSAGE },
    },
  });
  const campaignId = data!.campaign.id;
  const result = await eventually(
    `campaign ${campaignId} done (a contact outside its calling hours waits: run within 08:00-21:00 at the mailbox's number)`,
    async () => {
      const { data: page } = await loop.api.client.GET('/api/v1/campaigns/{id}/results', { params: { path: { id: campaignId } } });
      const [contact] = (page?.results ?? []) as ContactResult[];
      return contact?.status === 'done' ? contact : undefined;
    },
    { timeoutMs: 4 * 60_000, everyMs: 3_000 },
  );
  const callId = result.call_ids[0];
  if (!callId) fail(`the contact was not called: ${result.outcome} (${result.skip_reason ?? 'no reason'})`);
  const call = await loop.api.call(callId);
  expectThat(
    result.outcome === 'voicemail',
    // A machine hung up on at once (`machine`, `answering_machine`) is one the detection took for a fax (issue 31).
    `outcome ${result.outcome}: answered_by ${call.answered_by}, end_cause ${call.end_cause} (the mailbox was not taken for a machine, or was taken for a fax)`,
  );
  expectThat(
    call.answered_by === 'machine' && call.end_cause === 'answering_machine',
    `answered_by ${call.answered_by}, end_cause ${call.end_cause}`,
  );
  const onMailbox = loop.receiver.events.filter((e) => e.lineId === mailbox.id && e.at >= startedAt);
  const mailboxCall = onMailbox.find((e) => e.type === 'call_started')?.callId ?? fail('the mailbox line never reported the call started');
  const interrupted = onMailbox.find((e) => e.type === 'interrupted');
  expectThat(
    !interrupted,
    `A spoke over the mailbox's greeting: it was interrupted after "${String(interrupted?.body.partial_response_text ?? '')}"`,
  );
  for (const word of [FIRST_WORD, LAST_WORD]) await heard(loop, mailboxCall, word, startedAt, 30_000);
  return { callId, mailbox, startedAt };
}
