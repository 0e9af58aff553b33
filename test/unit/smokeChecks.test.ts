import crypto from 'node:crypto';
import { signatureHeaders } from '../../src/domain/webhooks/signature';
import { silenceFrame, toneFrame } from '../../src/platform/audio/mulaw';
import { Receiver } from '../../src/main/smoke/receiver';
import { CheckFailed } from '../../src/main/smoke/runner';
import { measureSpeech } from '../../src/main/smoke/telnyxAudio';
import { switchboardCallOf } from '../../src/main/smoke/telnyxSide';
import { speechOf } from '../../src/main/smoke/telnyxSpeech';
import { answeredByOf } from '../../src/main/smoke/twilioSide';
import { repeatedFetches } from '../../src/main/smoke/twilioTransfers';
import { pairsOf } from '../../src/main/smoke/twilioVoices';
import { freePort } from '../../src/platform/net/freePort';

/** The smoke kit's own judgements, offline: what its live checks would conclude from what they see. */

describe('long speeches (Telnyx 3,000-character limit)', () => {
  it.each([3_001, 5_000])('a %i-character speech is exactly that long and ends with its word', (length) => {
    const text = speechOf(length, 'pineapple');
    expect(text).toHaveLength(length);
    expect(text.endsWith('The last word of this speech is pineapple.')).toBe(true);
    expect(text.indexOf('pineapple')).toBe(text.length - 'pineapple.'.length);
  });
});

describe('G.722 misread as µ-law', () => {
  it('tells speech-like audio (tone bursts with pauses) from noise (random bytes)', () => {
    const speech = Array.from({ length: 400 }, (_, i) => (Math.floor(i / 25) % 2 === 0 ? toneFrame(220, i, 6_000) : silenceFrame()));
    const noise = Array.from({ length: 400 }, () => crypto.randomBytes(160));
    expect(measureSpeech(speech)).toMatchObject({ frames: 400, speechLike: true });
    const misread = measureSpeech(noise);
    expect(misread.speechLike).toBe(false);
    expect(misread.loudZeroCrossings).toBeGreaterThan(0.3);
  });
});

describe('Twilio readings', () => {
  it('finds the TwiML URLs Twilio fetched more than once, with what each fetch was answered', () => {
    const url = 'https://sb.example.com/carrier/twilio/calls/connect?call_id=c1&resume=1';
    expect(
      repeatedFetches([
        { url, status: 200 },
        { url: 'https://sb.example.com/carrier/twilio/calls/dialed', status: 200 },
        { url, status: 403 },
      ]),
    ).toEqual([{ url, times: 2, statuses: [200, 403] }]);
  });

  it("maps Twilio's AnsweredBy as Switchboard documents it", () => {
    expect(['human', 'machine_start', 'machine_end_beep', 'fax', 'unknown', null].map(answeredByOf)).toEqual([
      'human',
      'machine',
      'machine',
      'machine',
      'unknown',
      'unknown',
    ]);
  });

  it('pairs the voices two per call, the last alone when odd', () => {
    expect(pairsOf(['a', 'b', 'c'])).toEqual([
      ['a', 'b'],
      ['c', undefined],
    ]);
  });
});

it("reads the Switchboard call id from a Telnyx leg's client_state", () => {
  expect(switchboardCallOf(Buffer.from(JSON.stringify({ c: 'call-1', d: 'i' })).toString('base64'))).toBe('call-1');
  expect(switchboardCallOf('not base64 json')).toBeUndefined();
  expect(switchboardCallOf(null)).toBeUndefined();
});

describe('the receiver', () => {
  const secret = crypto.randomBytes(32).toString('hex');
  const lineId = crypto.randomUUID();
  let receiver: Receiver;
  let url: string;

  beforeEach(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    receiver = new Receiver(url, port);
    await receiver.start();
    receiver.addLine(lineId, secret);
  });
  afterEach(() => receiver.stop());

  const deliver = (body: Record<string, unknown>, key = secret) => {
    const rawBody = JSON.stringify({ line_id: lineId, event_id: crypto.randomUUID(), ...body });
    const headers = signatureHeaders({ secret: key, deliveryId: crypto.randomUUID(), rawBody, attempt: 1, now: new Date() });
    return fetch(`${url}/switchboard`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: rawBody });
  };

  it('is reachable through its public URL', async () => {
    expect(await receiver.reachable()).toBeUndefined();
  });

  it("keeps verified deliveries, answers a line's next message with the scripted reply, and refuses forged ones", async () => {
    receiver.replyNext(lineId, 'a long story');
    const first = await deliver({ event: 'message', call_id: 'call-1', text: 'tell me a story' });
    expect(await first.json()).toEqual({ text: 'a long story' });
    const second = await deliver({ event: 'message', call_id: 'call-1', text: 'and then?' });
    expect(await second.json()).toEqual({});

    const forged = await deliver({ event: 'call_started', call_id: 'call-1' }, 'f'.repeat(64));
    expect(forged.status).toBe(401);
    expect(receiver.refused).toEqual([`${lineId}: signature_mismatch`]);
    expect(receiver.distinct('call-1', 'message').map((e) => e.body.text)).toEqual(['tell me a story', 'and then?']);
  });

  it('waits for an event still to come, and fails with what it waited for', async () => {
    const waiting = receiver.waitFor('call_ended', (e) => e.type === 'call_ended', 5_000);
    await deliver({ event: 'call_ended', call_id: 'call-2' });
    expect((await waiting).callId).toBe('call-2');
    await expect(receiver.waitFor('sms_received', (e) => e.type === 'sms_received', 50)).rejects.toThrow(CheckFailed);
  });
});
