import { twilioCallEventType, twilioMessageStatus, utteranceLanguage } from '../../src/adapters/carrier/twilio/callbacks/translate';
import { verifyTwilioCallback } from '../../src/adapters/carrier/twilio/callbacks/verify';
import { memorySpeechQueue } from '../../src/adapters/carrier/twilio/callbacks/speechQueue';
import { twilioSignature } from '../support/twilioStub';

/** The pure parts of the Twilio webhooks: verification, translation, and the speech queue's order. */
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
    expect([undefined, 'en-US', 'fr-FR', 'pt-br', 'zh-CN', 'he'].map(utteranceLanguage)).toEqual([
      'en',
      'en',
      'fr',
      'pt-BR',
      'zh-CN',
      'he',
    ]);
  });

  it('says one speech at a time, the rest in order, once each; a failed start queues nothing', async () => {
    const queue = memorySpeechQueue();
    const played: string[] = [];
    const play = async (speech: { speakId: string }) => void played.push(speech.speakId);
    await queue.speak('CA1', { speakId: 'a', text: 'A' }, play);
    await queue.speak('CA1', { speakId: 'b', text: 'B' }, play);
    await queue.speak('CA1', { speakId: 'b', text: 'B' }, play);
    await queue.speak('CA1', { speakId: 'c', text: 'C' }, play);
    expect(played).toEqual(['a']);
    expect((await queue.next('CA1', 'a'))?.speakId).toBe('b');
    expect((await queue.next('CA1', 'b'))?.speakId).toBe('c');
    expect(await queue.next('CA1', 'c')).toBeUndefined();

    await expect(queue.speak('CA2', { speakId: 'x', text: 'X' }, () => Promise.reject(new Error('ended')))).rejects.toThrow('ended');
    await queue.speak('CA2', { speakId: 'x', text: 'X' }, play);
    expect(played).toEqual(['a', 'x']);
    await queue.clear('CA2');
    await queue.speak('CA2', { speakId: 'y', text: 'Y' }, play);
    expect(played).toEqual(['a', 'x', 'y']);
  });
});
