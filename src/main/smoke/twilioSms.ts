import crypto from 'node:crypto';
import { eventually, expectThat, fail, type Check } from './runner';
import type { TwilioSession } from './twilioSide';

/**
 * An SMS to a US number through the Messaging Service (review, Twilio "SMS send" and defect 3:
 * US traffic from numbers outside a registered A2P 10DLC campaign is blocked, 30034/30035). Line
 * A texts line B: Twilio must have sent it with the configured Messaging Service, with A's number
 * in that service, Switchboard must see it delivered, and B must receive it (its number's inbound
 * SMS still reaches Switchboard).
 */

const FINAL = ['delivered', 'undelivered', 'failed'];

export const smsCheck: Check<TwilioSession> = {
  id: 'sms',
  title: 'An SMS to a US number goes through the Messaging Service and is delivered',
  budgetMs: 4 * 60_000,
  needs: [
    {
      name: 'TWILIO_LIVE_MESSAGING_SERVICE_SID',
      what: 'the Messaging Service (MG…) the deployment sends US SMS through, as configured on the worker',
    },
  ],
  async run(session) {
    const serviceSid = session.env.TWILIO_LIVE_MESSAGING_SERVICE_SID!.trim();
    const word = `smoke${crypto.randomBytes(3).toString('hex')}`;
    await session.api.grantConsent(session.a.id, session.b.phone_number);
    const since = Date.now();
    const sent = await session.api.sendSms(session.a.id, session.b.phone_number, `Switchboard smoke test ${word}`);
    // GET /conversations/… allows 60 reads an hour per workspace: polled every 5 s.
    const settled = await eventually(
      `message ${sent.id} sent or settled`,
      async () => {
        const message = (await session.api.conversation(session.a.id, session.b.phone_number)).find((m) => m.id === sent.id);
        return message && message.status !== 'queued' ? message : undefined;
      },
      { timeoutMs: 90_000, everyMs: 5_000 },
    );
    if (settled.status === 'undelivered' || settled.status === 'failed')
      fail(
        `message ${sent.id} ${settled.status}, error ${settled.error_code ?? 'none'} (30034/30035: the number is not in a registered A2P campaign)`,
      );

    const atTwilio = (await session.twilio.messages.list({ from: session.a.phone_number, to: session.b.phone_number, limit: 20 })).find(
      (m) => m.body.includes(word),
    );
    if (!atTwilio) return fail(`Twilio lists no message from ${session.a.phone_number} with "${word}"`);
    expectThat(
      atTwilio.messagingServiceSid === serviceSid,
      `Twilio sent ${atTwilio.sid} with Messaging Service ${atTwilio.messagingServiceSid ?? 'none'}, not ${serviceSid}`,
    );
    const inService = await session.twilio.messaging.v1.services(serviceSid).phoneNumbers.list({ limit: 1000 });
    expectThat(
      inService.some((n) => n.phoneNumber === session.a.phone_number),
      `line A's number ${session.a.phone_number} is not in Messaging Service ${serviceSid}`,
    );
    await session.receiver.waitFor(
      `sms_received on B with "${word}"`,
      (e) => e.lineId === session.b.id && e.type === 'sms_received' && e.at >= since && JSON.stringify(e.body).includes(word),
      60_000,
    );
    const final = await eventually(
      `message ${sent.id} delivered`,
      async () => {
        const message = (await session.api.conversation(session.a.id, session.b.phone_number)).find((m) => m.id === sent.id);
        return message && FINAL.includes(message.status) ? message : undefined;
      },
      { timeoutMs: 60_000, everyMs: 5_000 },
    );
    expectThat(final.status === 'delivered', `message ${sent.id} ended ${final.status}, error ${final.error_code ?? 'none'}`);
    return `${atTwilio.sid} sent through ${serviceSid} (A's number is in it), delivered, and B received it as sms_received`;
  },
};
