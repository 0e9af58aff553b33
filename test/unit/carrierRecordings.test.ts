import http from 'node:http';
import { createDb } from '../../src/platform/db/knex';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { getFromCarrier, recordingOf } from '../../src/adapters/carrier/recordingFetch';
import { CarrierRejectedError, type CarrierRecording } from '../../src/adapters/carrier/port';
import type { TelnyxCarrier } from '../../src/adapters/carrier/telnyx/telnyxCarrier';
import { TwilioCarrier } from '../../src/adapters/carrier/twilio/twilioCarrier';
import { memoryCreateAttempts } from '../support/memoryCreateAttempts';
import { startTelnyxStub, telnyxCarrierOn, type TelnyxStub } from '../support/telnyxStub';
import { startTwilioStub, type TwilioStub } from '../support/twilioStub';

const CALL_ID = '00000000-0000-4000-8000-000000000017';

async function bytesOf(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A WAV of `ms` 8 kHz 16-bit mono samples, as the stubs serve it. */
async function expectWav(recording: CarrierRecording, ms: number): Promise<void> {
  const bytes = await bytesOf(recording.body);
  expect(bytes.subarray(0, 4).toString('ascii')).toBe('RIFF');
  expect(bytes.subarray(8, 12).toString('ascii')).toBe('WAVE');
  expect(bytes.length).toBe(44 + (ms / 1000) * 8000 * 2);
  expect(recording.contentLength).toBe(bytes.length);
}

/** Each real carrier's `openRecording` against its contract stub: credentials, documented media formats, and the host boundary. */
describe('carrier recordings (Twilio and Telnyx contract stubs)', () => {
  describe('Twilio', () => {
    let stub: TwilioStub;
    let carrier: TwilioCarrier;
    beforeAll(async () => {
      stub = await startTwilioStub();
      carrier = new TwilioCarrier({
        account: { accountSid: stub.accountSid, authToken: stub.authToken },
        publicBaseUrl: 'http://127.0.0.1:9/base',
        mode: 'live',
        apiBaseUrl: stub.url,
        relay: { send: async () => undefined },
        attempts: memoryCreateAttempts(),
      });
    });
    afterAll(async () => {
      await stub.close();
    });
    beforeEach(() => {
      stub.requests.length = 0;
    });

    it("reads the Recording's media as WAV with Basic auth, from its RecordingUrl", async () => {
      const recordingUrl = stub.addRecording('CA' + '1'.repeat(32), 500);
      const recording = await carrier.openRecording({ callId: CALL_ID, recordingUrl });
      expect(recording.contentType).toBe('audio/x-wav');
      await expectWav(recording, 500);
      expect(stub.requests).toEqual([{ method: 'GET', path: `${new URL(recordingUrl).pathname}.wav`, params: {} }]);
    });

    it("takes Twilio's own RecordingUrl (api.twilio.com) and asks the configured API for it", async () => {
      const stubbed = stub.addRecording('CA' + '2'.repeat(32), 250);
      const canonical = `https://api.twilio.com${new URL(stubbed).pathname}`;
      await expectWav(await carrier.openRecording({ callId: CALL_ID, recordingUrl: canonical }), 250);
      expect(stub.requests.map((r) => r.path)).toEqual([`${new URL(stubbed).pathname}.wav`]);
    });

    it('refuses, without any request, a URL on another host, of another account or not a Recording', async () => {
      const own = new URL(stub.addRecording('CA' + '3'.repeat(32)));
      const refused = [
        `http://169.254.169.254${own.pathname}`,
        `http://evil.example.test${own.pathname}`,
        `http://user:pass@${own.host}${own.pathname}`,
        `${own.origin}${own.pathname.replace(stub.accountSid, 'AC' + 'f'.repeat(32))}`,
        `${own.origin}/2010-04-01/Accounts/${stub.accountSid}/Calls.json`,
        'not a url',
      ];
      for (const recordingUrl of refused)
        await expect(carrier.openRecording({ callId: CALL_ID, recordingUrl })).rejects.toBeInstanceOf(CarrierRejectedError);
      expect(stub.requests).toEqual([]);
    });

    it('reports a recording Twilio does not have as a refusal', async () => {
      const unknown = `${stub.url}/2010-04-01/Accounts/${stub.accountSid}/Recordings/RE${'0'.repeat(32)}`;
      await expect(carrier.openRecording({ callId: CALL_ID, recordingUrl: unknown })).rejects.toBeInstanceOf(CarrierRejectedError);
    });
  });

  describe('Telnyx', () => {
    let stub: TelnyxStub;
    let carrier: TelnyxCarrier;
    // Recordings need no shared state: a pool that is never used.
    const db = createDb('postgres://127.0.0.1:9/unused');
    beforeAll(async () => {
      stub = await startTelnyxStub();
      carrier = telnyxCarrierOn(stub, db);
    });
    afterAll(async () => {
      await stub.close();
      await db.destroy();
    });
    beforeEach(() => {
      stub.requests.length = 0;
    });

    it('reads the recording resource with the API key, then downloads its presigned WAV link without it', async () => {
      const id = stub.addRecording('v3:call-1', 750);
      // What the webhook translation stores as `recording_url`: Telnyx's own resource URL.
      const recording = await carrier.openRecording({ callId: CALL_ID, recordingUrl: `https://api.telnyx.com/v2/recordings/${id}` });
      expect(recording.contentType).toBe('audio/wav');
      await expectWav(recording, 750);
      expect(stub.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /v2/recordings/${id}`, `GET /storage/recordings/${id}.wav`]);
    });

    it('refuses, without any request, a URL on another host or not a recording resource', async () => {
      const id = stub.addRecording('v3:call-2');
      const refused = [
        `https://evil.example.test/v2/recordings/${id}`,
        `http://169.254.169.254/v2/recordings/${id}`,
        `https://api.telnyx.com/v2/calls/${id}`,
        `https://api.telnyx.com/v2/recordings/${id}/../../calls`,
        `${stub.url}/storage/recordings/${id}.wav`,
        'not a url',
      ];
      for (const recordingUrl of refused)
        await expect(carrier.openRecording({ callId: CALL_ID, recordingUrl })).rejects.toBeInstanceOf(CarrierRejectedError);
      expect(stub.requests).toEqual([]);
    });

    it('reports a recording Telnyx does not have as a refusal', async () => {
      await expect(
        carrier.openRecording({
          callId: CALL_ID,
          recordingUrl: 'https://api.telnyx.com/v2/recordings/00000000-0000-4000-8000-000000000000',
        }),
      ).rejects.toBeInstanceOf(CarrierRejectedError);
    });
  });

  describe('the limits every adapter reads with', () => {
    let server: http.Server;
    let url: string;
    beforeAll(async () => {
      // `/slow` never answers; `/big` streams 64 KiB without announcing its length.
      server = http.createServer((req, res) => {
        if (req.url === '/big') {
          res.writeHead(200, { 'content-type': 'audio/wav' });
          for (let i = 0; i < 16; i++) res.write(Buffer.alloc(4096));
          res.end();
        }
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('gives up on a carrier that does not answer in time', async () => {
      await expect(getFromCarrier(new URL('/slow', url), {}, 'the recording', 100)).rejects.toThrow(/timeout|aborted/i);
    });

    it('refuses a recording announced larger than the cap, and cuts one that grows past it', async () => {
      const announced = new Response('RIFF', { headers: { 'content-length': '5000' } });
      expect(() => recordingOf(announced, 'audio/wav', 4096)).toThrow(CarrierRejectedError);
      const growing = recordingOf(await getFromCarrier(new URL('/big', url), {}, 'the recording'), 'audio/wav', 10_000);
      await expect(bytesOf(growing.body)).rejects.toThrow(/grew past 10000 bytes/);
      const fits = recordingOf(await getFromCarrier(new URL('/big', url), {}, 'the recording'), 'audio/wav', 65_536);
      expect((await bytesOf(fits.body)).length).toBe(65_536);
    });
  });
});
