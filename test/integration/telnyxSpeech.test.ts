import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CarrierCallEvent } from '../../src/adapters/carrier/port';
import { decodeClientState } from '../../src/adapters/carrier/callbacks/telnyx/clientState';
import { postgresTelnyxCallLanguages } from '../../src/adapters/carrier/callbacks/telnyx/callRecords';
import { postgresTelnyxSpeechQueue } from '../../src/adapters/carrier/callbacks/telnyx/speechQueue';
import { translateTelnyxEvent, type TelnyxWebhookBody } from '../../src/adapters/carrier/callbacks/telnyx/webhook';
import { telnyxClient } from '../../src/adapters/carrier/telnyx/client';
import { telnyxSpeechCommands } from '../../src/adapters/carrier/telnyx/speech';
import type { TelnyxCarrier } from '../../src/adapters/carrier/telnyx/telnyxCarrier';
import { createDb, type Db } from '../../src/platform/db/knex';
import { eventually } from '../support/eventually';
import { startTelnyxStub, telnyxCarrierOn, type TelnyxStub } from '../support/telnyxStub';

/**
 * Speech on Telnyx end to end without the call flow: the worker's adapter queues speech, the stub plays it and
 * posts its webhooks, and the API's translator (with the same Postgres queue and a Telnyx client of its own, as
 * src/main wires them) reports playback and sends the next command. Telnyx's documented limits are the stub's:
 * `speak` payloads of at most 3,000 characters; `client_state` applied to every later webhook of the call;
 * `playback_stop` answered with `call.speak.ended` `status: completed`.
 */
describe('Telnyx speech', () => {
  let db: Db;
  let stub: TelnyxStub;
  let carrier: TelnyxCarrier;
  let receiver: http.Server;
  /** What the translator reported, in the order the stub's webhooks came. */
  const reported: CarrierCallEvent[] = [];
  const callIds = new Map<string, string>();

  beforeAll(async () => {
    db = createDb(process.env.DATABASE_URL!, { max: 4 });
    stub = await startTelnyxStub();
    const apiClient = telnyxClient({
      apiKey: stub.apiKey,
      baseUrl: stub.baseUrl,
      connectionId: 'conn-1',
      messagingProfileId: 'p',
      webhookUrl: '',
    });
    const calls = {
      speech: postgresTelnyxSpeechQueue(db, telnyxSpeechCommands(apiClient)),
      languages: postgresTelnyxCallLanguages(db),
      dialled: async () => undefined,
    };
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as TelnyxWebhookBody;
        void translateTelnyxEvent(body, {
          callByCarrierId: async (id) => (callIds.has(id) ? { id: callIds.get(id)!, direction: 'outbound' } : undefined),
          messageByCarrierId: async () => undefined,
          recordingOfLeg: async () => undefined,
          calls,
        })
          .then((translation) => {
            if (translation.kind === 'call') reported.push(translation.event);
            if (translation.kind === 'calls') reported.push(...translation.events);
            res.writeHead(200).end();
          })
          .catch((err: Error) => res.writeHead(500).end(err.message));
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    carrier = telnyxCarrierOn(stub, db, { webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events` });
  });
  afterAll(async () => {
    await stub.close();
    await new Promise((resolve) => receiver.close(resolve));
    await db.destroy();
  });
  beforeEach(() => void (reported.length = 0));

  const answeredCall = async (language = 'multi') => {
    const callId = crypto.randomUUID();
    const { carrierCallId } = await carrier.placeCall({ callId, from: '+14155550100', to: '+14155550101', eventsUrl: '', language });
    callIds.set(carrierCallId, callId);
    await stub.answer(carrierCallId);
    return carrierCallId;
  };
  const playback = (speakId: string) => reported.filter((e) => e.type === 'call.playback' && e.speak_id === speakId);
  const speakRequests = () => stub.requests.filter((r) => r.path.endsWith('/actions/speak'));
  const words = (text: string) => text.split(/\s+/).filter(Boolean);

  it('a 5,000-character speech is spoken as commands of at most 3,000 characters, one at a time, reported as one speech', async () => {
    const id = await answeredCall();
    let text = '';
    for (let i = 0; text.length < 4_990; i += 1) text += `This is sentence ${i} of a long answer. `;
    text = text.slice(0, 5_000).replace(/\S*$/, '').trim();
    await carrier.speak({ carrierCallId: id, speakId: 'long', text });
    const call = stub.calls.get(id)!;
    expect(call.speeches).toHaveLength(1);
    const first = speakRequests().find((r) => r.path.includes(encodeURIComponent(id)) || r.path.includes(id))!;
    expect(String(first.body.payload).length).toBeLessThanOrEqual(3_000);
    // Only a short reference travels in client_state, which Telnyx adds to every later webhook of the call.
    expect(String(first.body.client_state).length).toBeLessThan(40);
    expect(decodeClientState(first.body.client_state)).toEqual({ s: expect.stringMatching(/^\d+$/) });

    await stub.finishSpeech(id);
    await eventually(async () => (call.speeches.length === 2 ? true : undefined));
    expect(playback('long')).toEqual([expect.objectContaining({ done: false, played_text: words(call.speeches[0].text).join(' ') })]);
    await stub.finishSpeech(id);
    await eventually(async () => (playback('long').some((e) => e.type === 'call.playback' && e.done) ? true : undefined));
    expect(playback('long').at(-1)).toMatchObject({ done: true, played_text: words(text).join(' ') });
    expect(call.speeches.map((s) => s.text).join(' ')).toBe(text);
    expect(speakRequests().every((r) => String(r.body.payload).length <= 3_000)).toBe(true);
  });

  it('a speech queued while another plays waits for it: one command at Telnyx at a time, each end reported on its own speech', async () => {
    const id = await answeredCall();
    await carrier.speak({ carrierCallId: id, speakId: 'a', text: 'First sentence.' });
    await carrier.speak({ carrierCallId: id, speakId: 'b', text: 'Second sentence.' });
    const call = stub.calls.get(id)!;
    expect(call.speeches.map((s) => s.text)).toEqual(['First sentence.']);
    await stub.finishSpeech(id);
    await eventually(async () => (call.speeches.length === 2 ? true : undefined));
    expect(playback('a')).toEqual([expect.objectContaining({ done: true, played_text: 'First sentence.' })]);
    await stub.finishSpeech(id);
    await eventually(async () => (playback('b').length === 1 ? true : undefined));
    expect(playback('b')[0]).toMatchObject({ done: true, played_text: 'Second sentence.' });
  });

  it('barge-in: caller speech (an interim result) stops playback; the speech is reported stopped with an estimate of what was heard, before the sentence', async () => {
    const id = await answeredCall('de');
    const text = Array.from({ length: 80 }, (_, i) => `wort${i}`).join(' ');
    await carrier.speak({ carrierCallId: id, speakId: 'reply', text });
    await carrier.speak({ carrierCallId: id, speakId: 'queued', text: 'Noch etwas.' });
    const call = stub.calls.get(id)!;
    await eventually(async () => (call.speeches[0]?.state === 'speaking' ? true : undefined));
    // pacing: the caller listens for about 1.5 s before talking, the playing time the estimate is made from.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await stub.say(id, 'Moment bitte', ['Moment']);
    await eventually(async () => (reported.some((e) => e.type === 'call.utterance') ? true : undefined));
    expect(call.commands.filter((c) => c.action === 'playback_stop')).toEqual([{ action: 'playback_stop', body: { stop: 'all' } }]);
    expect(call.speeches.map((s) => s.state)).toEqual(['stopped']);
    const stopped = playback('reply');
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toMatchObject({ done: true, stopped: true });
    const heard = words((stopped[0] as { played_text: string }).played_text);
    // About 12 characters a second: 1.5 s is 18 characters, 3 words of these; never all of them.
    expect(heard.length).toBeGreaterThanOrEqual(2);
    expect(heard).toEqual(words(text).slice(0, heard.length));
    expect(heard.length).toBeLessThan(10);
    expect(playback('queued')).toEqual([expect.objectContaining({ done: true, stopped: true, played_text: '' })]);
    const utterance = reported.findIndex((e) => e.type === 'call.utterance');
    expect(reported.findIndex((e) => e.type === 'call.playback' && e.speak_id === 'reply')).toBeLessThan(utterance);
    // A line pinned to German: its sentences are German, as its transcription was asked.
    expect(reported[utterance]).toMatchObject({ text: 'Moment bitte', language: 'de' });
  });

  it('caller speech while nothing plays stops nothing; a multi line’s sentence carries no language', async () => {
    const id = await answeredCall('multi');
    await stub.say(id, 'Hallo', ['Hal']);
    await eventually(async () => (reported.some((e) => e.type === 'call.utterance') ? true : undefined));
    expect(stub.calls.get(id)!.commands.some((c) => c.action === 'playback_stop')).toBe(false);
    const spoken = reported.filter((e) => e.type === 'call.utterance' || e.type === 'call.playback');
    expect(spoken).toEqual([expect.objectContaining({ type: 'call.utterance', text: 'Hallo' })]);
    expect(spoken[0]).not.toHaveProperty('language');
  });
});
