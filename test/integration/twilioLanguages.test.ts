import { customer } from '../support/customer';
import { eventually, webhookLine } from '../support/harness';
import { type StubCall } from '../support/twilioStub';
import { useTwilioLiveSuite } from '../support/twilioHarness';
import { simulator } from '../support/simulatorControl';

/**
 * The line's language and voice on Twilio's ConversationRelay (issue 26 item 5, and the review's
 * "voice names" and "undeclared-language switches"): the relay TwiML transcribes a `multi` line with
 * Deepgram's detection (`transcriptionLanguage="multi"`, whose `prompt`s say the language heard, Twilio
 * changelog 2025-10-07) and a pinned line in its language; the call's facts travel as `<Parameter>`s
 * (`setup.customParameters`); every language a session may switch to is declared as a `<Language>`, and
 * the stub, like Twilio, refuses a `language` message for one that is not.
 */
describe('Twilio line languages and voices (contract stub)', () => {
  const { ctx, stub, stubCallTo, reopenedRelay } = useTwilioLiveSuite({ firstNumber: 5559100 });
  const { lines, calls } = customer(ctx, { key: () => ctx.tenant.keys.live, line: () => webhookLine({ webhook_url: ctx.receiver.url }) });
  const relayAttributes = (call: StubCall) => /<ConversationRelay [^>]*>/.exec(call.twiml)![0];
  const messageEvent = (callId: string, text: string) =>
    eventually(
      async () => ctx.receiver.requests.find((r) => r.body.event === 'message' && r.body.call_id === callId && r.body.text === text),
      20_000,
      `the message "${text}"`,
    );

  it('a multi line: Deepgram detects the caller’s language, and the message carries the language Twilio heard', async () => {
    const line = await lines.create();
    const call = await calls.dial(line.id, '+14155550501');
    const twilioCall = await stubCallTo('+14155550501');
    await stub.answer(twilioCall.sid);
    await eventually(async () => (twilioCall.relay ? true : undefined), 20_000, 'the ConversationRelay session');
    expect(relayAttributes(twilioCall)).toContain('transcriptionLanguage="multi" transcriptionProvider="Deepgram"');
    expect(twilioCall.relay!.customParameters).toEqual({ call_id: call.id, language: 'en-US' });

    await stub.callerSays(twilioCall.sid, 'Hallo, haben Sie heute Abend einen Tisch frei?', 'de');
    expect((await messageEvent(call.id, 'Hallo, haben Sie heute Abend einen Tisch frei?')).body.detected_language).toBe('de');
    await stub.callerSays(twilioCall.sid, 'Perfecto, gracias.', 'es');
    expect((await messageEvent(call.id, 'Perfecto, gracias.')).body.detected_language).toBe('es');
    await calls.hangUp(call.id);
  });

  it('a line pinned to Spanish: Twilio transcribes in es-ES and speaks in the line’s Spanish voice', async () => {
    ctx.receiver.replyTo('Una mesa para dos', '¿A qué hora?');
    const line = await lines.create({ language: 'es', voice: 'spanish-clara' });
    const call = await calls.dial(line.id, '+14155550502');
    const twilioCall = await stubCallTo('+14155550502');
    await stub.answer(twilioCall.sid);
    await eventually(async () => (twilioCall.relay ? true : undefined), 20_000, 'the ConversationRelay session');
    for (const attribute of ['ttsLanguage="es-ES"', 'ttsProvider="Amazon"', 'voice="Lucia-Neural"', 'transcriptionLanguage="es-ES"'])
      expect(relayAttributes(twilioCall)).toContain(attribute);
    await stub.callerSays(twilioCall.sid, 'Una mesa para dos');
    await messageEvent(call.id, 'Una mesa para dos');
    await eventually(async () => (twilioCall.relay!.said.includes('¿A qué hora?') ? true : undefined), 20_000, 'the reply');
    // Said in the session's own language: no switch, nothing refused.
    expect(twilioCall.relay!.received.filter((m) => m.type === 'language')).toEqual([]);
    expect(twilioCall.relay!.errors).toEqual([]);
    await calls.hangUp(call.id);
  });

  it('a session reopened in the line’s new voice: the call’s own voice switches to a declared language, and Twilio refuses nothing', async () => {
    const line = await lines.create({ mode: 'hosted', system_prompt: 'You are the booking desk of Chez Marie.', voice: 'french-louis' });
    const call = await calls.dial(line.id, '+14155550503');
    const twilioCall = await stubCallTo('+14155550503');
    await stub.answer(twilioCall.sid);
    await eventually(async () => (twilioCall.relay ? true : undefined), 20_000, 'the ConversationRelay session');
    // The line gets another voice while the call runs (the call keeps the one it started with), and the session reopens.
    expect((await lines.update(line.id, { voice: 'german-lena' })).status).toBe(200);
    const second = await reopenedRelay(twilioCall);
    expect(relayAttributes(twilioCall)).toContain('ttsLanguage="de-DE"');
    await simulator(() => ctx.h).model.reply({ match: 'Encore', reply: 'Oui, toujours.' });
    await stub.callerSays(twilioCall.sid, 'Encore là ?', 'fr');
    await eventually(async () => (second.said.includes('Oui, toujours.') ? true : undefined), 20_000, 'the reply');
    expect(second.received.filter((m) => m.type === 'language')).toEqual([{ type: 'language', ttsLanguage: 'fr-FR' }]);
    expect([second.errors, second.ttsLanguage]).toEqual([[], 'fr-FR']);
    await calls.hangUp(call.id);
  });
});
