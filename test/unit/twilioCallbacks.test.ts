import { twilioCallEventType, twilioMessageStatus, utteranceLanguage } from '../../src/adapters/carrier/twilio/callbacks/translate';
import { verifyTwilioCallback } from '../../src/adapters/carrier/twilio/callbacks/verify';
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { ConversationRelaySession, type RelayReport } from '../../src/adapters/carrier/twilio/callbacks/relaySession';
import { createLogger } from '../../src/platform/logger';
import { twilioSignature } from '../support/twilioStub';

/** The pure parts of the Twilio webhooks: verification, translation, and a ConversationRelay session's reports. */
describe('Twilio callbacks', () => {
  const live = { accountSid: `AC${'1'.repeat(32)}`, authToken: 'live-token-0123456789abcdef' };
  const test = { accountSid: `AC${'2'.repeat(32)}`, authToken: 'test-token-0123456789abcdef' };
  const url = 'https://switchboard.example.com/carrier/twilio/calls/status?call_id=abc';
  const params = { AccountSid: test.accountSid, CallSid: `CA${'3'.repeat(32)}`, CallStatus: 'ringing' };

  it("verifies with the auth token of the account the callback names, over the exact URL (Twilio's algorithm)", () => {
    const signature = twilioSignature(test.authToken, url, params);
    expect(verifyTwilioCallback({ accounts: [live, test], signature, url, params })).toEqual({ valid: true, account: test });
    const refused = (input: Partial<Parameters<typeof verifyTwilioCallback>[0]>) =>
      verifyTwilioCallback({ accounts: [live, test], signature, url, params, ...input });
    expect(refused({ accounts: [] })).toEqual({ valid: false, reason: 'no_twilio_account' });
    expect(refused({ signature: undefined })).toEqual({ valid: false, reason: 'missing_signature' });
    expect(refused({ accounts: [live] })).toEqual({ valid: false, reason: 'unknown_account' });
    expect(refused({ url: url.replace('abc', 'abd') })).toEqual({ valid: false, reason: 'signature_mismatch' });
    expect(refused({ params: { ...params, CallStatus: 'completed' } })).toEqual({ valid: false, reason: 'signature_mismatch' });
    expect(refused({ signature: twilioSignature(live.authToken, url, params) })).toEqual({ valid: false, reason: 'signature_mismatch' });
  });

  it("translates Twilio's statuses into the carrier events Switchboard knows", () => {
    expect(
      ['queued', 'initiated', 'ringing', 'in-progress', 'completed', 'canceled', 'busy', 'no-answer', 'failed'].map(twilioCallEventType),
    ).toEqual([null, null, 'call.ringing', null, 'call.completed', 'call.completed', 'call.busy', 'call.no_answer', 'call.failed']);
    expect(['accepted', 'queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed', 'read'].map(twilioMessageStatus)).toEqual([
      null,
      null,
      null,
      'sent',
      'delivered',
      'undelivered',
      'failed',
      null,
    ]);
    expect(['en-US', 'fr-FR', 'pt-br', 'zh-CN', 'he'].map(utteranceLanguage)).toEqual(['en', 'fr', 'pt-BR', 'zh-CN', 'he']);
  });

  it('ConversationRelay: speeches go as text, played when Twilio stops speaking; an interrupt stops the rest; prompts are utterances in the language Twilio heard', async () => {
    const ws = Object.assign(new EventEmitter(), { readyState: WebSocket.OPEN, sent: [] as unknown[] });
    Object.assign(ws, { send: (data: string) => ws.sent.push(JSON.parse(data)) });
    const reports: RelayReport[] = [];
    const setups: string[] = [];
    const session = new ConversationRelaySession(ws as unknown as WebSocket, {
      log: createLogger('test', 'silent'),
      report: async (report) => void reports.push(report),
      onSetup: (s) => setups.push(s.callSid!),
      onClose: () => undefined,
    });
    const twilioSays = async (message: object) => {
      ws.emit('message', Buffer.from(JSON.stringify(message)), false);
      await new Promise((resolve) => setImmediate(resolve));
    };
    // The call's facts come as the TwiML's <Parameter>s (setup.customParameters).
    await twilioSays({
      type: 'setup',
      sessionId: 'VX1',
      callSid: 'CA1',
      accountSid: live.accountSid,
      customParameters: { call_id: 'call-1', language: 'en-US' },
    });
    expect(setups).toEqual(['CA1']);
    expect(session.customParameters).toEqual({ call_id: 'call-1', language: 'en-US' });
    await session.drain(async () => [
      { kind: 'speak', speakId: 'a', text: 'Hello.', voice: { voice: 'Polly.Joanna-Neural', language: 'en-US', multilingual: true } },
      { kind: 'speak', speakId: 'b', text: 'Bonjour.', voice: { voice: 'Polly.Remi-Neural', language: 'fr-FR', multilingual: false } },
      { kind: 'digits', digits: '1#' },
    ]);
    // A voice of another language switches only what Twilio speaks (a language the TwiML declared); transcription stays the line's.
    expect(ws.sent).toEqual([
      { type: 'text', token: 'Hello.', last: true },
      { type: 'language', ttsLanguage: 'fr-FR' },
      { type: 'text', token: 'Bonjour.', last: true },
      { type: 'sendDigits', digits: '1#' },
    ]);
    await twilioSays({ type: 'info', name: 'agentSpeaking', value: 'on' });
    await twilioSays({ type: 'interrupt', utteranceUntilInterrupt: 'Hel', durationUntilInterruptMs: 420 });
    await twilioSays({ type: 'prompt', voicePrompt: 'Stop', lang: 'fr-FR', last: true });
    await twilioSays({ type: 'info', name: 'agentSpeaking', value: 'off' });
    expect(reports).toEqual([
      { type: 'playback', speakId: 'a', playedText: 'Hel', stopped: true },
      { type: 'playback', speakId: 'b', playedText: '', stopped: true },
      { type: 'utterance', text: 'Stop', language: 'fr' },
    ]);
    // A multilingual voice speaks the session's own language again.
    await session.drain(async () => [
      { kind: 'speak', speakId: 'c', text: 'Yes.', voice: { voice: 'Polly.Joanna-Neural', language: 'en-US', multilingual: true } },
    ]);
    expect(ws.sent.slice(-2)).toEqual([
      { type: 'language', ttsLanguage: 'en-US' },
      { type: 'text', token: 'Yes.', last: true },
    ]);
    await twilioSays({ type: 'info', name: 'agentSpeaking', value: 'off' });
    expect(reports.at(-1)).toEqual({ type: 'playback', speakId: 'c', playedText: 'Yes.', stopped: false });
    // A prompt that says no language has none: never a made-up one.
    await twilioSays({ type: 'prompt', voicePrompt: 'Thanks', last: true });
    expect(reports.at(-1)).toEqual({ type: 'utterance', text: 'Thanks' });
  });
});
