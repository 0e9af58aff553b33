import http from 'node:http';
import { createDb } from '../../src/platform/db/knex';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { getFromCarrier, recordingOf } from '../../src/adapters/carrier/recordingFetch';
import { CarrierAuthError, CarrierRejectedError, type CarrierRecording } from '../../src/adapters/carrier/port';
import { SimulatorCarrier } from '../../src/adapters/carrier/simulatorCarrier';
import { TelnyxCarrier } from '../../src/adapters/carrier/telnyx/telnyxCarrier';
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

    it('deletes the Recording (DeleteRecording): opening it is refused afterwards, and deleting it again succeeds', async () => {
      const recordingUrl = stub.addRecording('CA' + '4'.repeat(32), 250);
      const resource = new URL(recordingUrl).pathname;
      await expectWav(await carrier.openRecording({ callId: CALL_ID, recordingUrl }), 250);
      await carrier.deleteRecording({ callId: CALL_ID, recordingUrl });
      expect(stub.recordings.has(resource.slice(-34))).toBe(false);
      await expect(carrier.openRecording({ callId: CALL_ID, recordingUrl })).rejects.toBeInstanceOf(CarrierRejectedError);
      // Twilio answers a Recording it no longer has 404 (20404): already done.
      await carrier.deleteRecording({ callId: CALL_ID, recordingUrl });
      // Twilio's own RecordingUrl (api.twilio.com) is deleted at the configured API, as it is read.
      await carrier.deleteRecording({ callId: CALL_ID, recordingUrl: `https://api.twilio.com${resource}` });
      expect(stub.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        `GET ${resource}.wav`,
        `DELETE ${resource}.json`,
        `GET ${resource}.wav`,
        `DELETE ${resource}.json`,
        `DELETE ${resource}.json`,
      ]);
    });

    it('deletes nothing with credentials Twilio refuses: a CarrierAuthError naming 20003, and the recording stays', async () => {
      const recordingUrl = stub.addRecording('CA' + '5'.repeat(32), 250);
      const wrong = new TwilioCarrier({
        account: { accountSid: stub.accountSid, authToken: 'f'.repeat(32) },
        publicBaseUrl: 'http://127.0.0.1:9/base',
        mode: 'live',
        apiBaseUrl: stub.url,
        relay: { send: async () => undefined },
        attempts: memoryCreateAttempts(),
      });
      const refused = await wrong.deleteRecording({ callId: CALL_ID, recordingUrl }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(CarrierAuthError);
      expect(refused).toMatchObject({ refusal: { provider: 'twilio', code: '20003' } });
      await expectWav(await carrier.openRecording({ callId: CALL_ID, recordingUrl }), 250);
    });

    it('refuses to delete, without any request, a URL on another host, of another account or not a Recording', async () => {
      const own = new URL(stub.addRecording('CA' + '6'.repeat(32)));
      for (const recordingUrl of [
        `http://169.254.169.254${own.pathname}`,
        `http://user:pass@${own.host}${own.pathname}`,
        `${own.origin}${own.pathname.replace(stub.accountSid, 'AC' + 'f'.repeat(32))}`,
        `${own.origin}/2010-04-01/Accounts/${stub.accountSid}/Calls/CA${'6'.repeat(32)}.json`,
        'not a url',
      ])
        await expect(carrier.deleteRecording({ callId: CALL_ID, recordingUrl })).rejects.toBeInstanceOf(CarrierRejectedError);
      expect(stub.requests).toEqual([]);
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

    it('deletes the recording (DELETE /v2/recordings/{id}): opening it is refused afterwards, deleting it again succeeds', async () => {
      const id = stub.addRecording('v3:call-3', 250);
      const recordingUrl = `https://api.telnyx.com/v2/recordings/${id}`;
      const before = await carrier.openRecording({ callId: CALL_ID, recordingUrl });
      const download = stub.requests[1];
      await expectWav(before, 250);
      await carrier.deleteRecording({ callId: CALL_ID, recordingUrl });
      expect(stub.recordings.has(id)).toBe(false);
      await expect(carrier.openRecording({ callId: CALL_ID, recordingUrl })).rejects.toBeInstanceOf(CarrierRejectedError);
      // The download link handed out before no longer serves it either.
      expect((await fetch(`${stub.url}${download.path}${download.query}`)).status).toBe(403);
      // Telnyx answers a recording it no longer has 404: already done.
      await carrier.deleteRecording({ callId: CALL_ID, recordingUrl });
      expect(stub.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        `GET /v2/recordings/${id}`,
        `GET /storage/recordings/${id}.wav`,
        `DELETE /v2/recordings/${id}`,
        `GET /v2/recordings/${id}`,
        `GET /storage/recordings/${id}.wav`,
        `DELETE /v2/recordings/${id}`,
      ]);
    });

    it('deletes nothing with a key Telnyx refuses: a CarrierAuthError, and the recording stays', async () => {
      const id = stub.addRecording('v3:call-4', 250);
      const recordingUrl = `https://api.telnyx.com/v2/recordings/${id}`;
      const wrong = telnyxCarrierOn(stub, db, { apiKey: 'KEY-not-this-account' });
      const refused = await wrong.deleteRecording({ callId: CALL_ID, recordingUrl }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(CarrierAuthError);
      expect(refused).toMatchObject({ refusal: { provider: 'telnyx' } });
      expect(stub.recordings.has(id)).toBe(true);
    });

    it('refuses to delete, without any request, a URL on another host or not a recording resource', async () => {
      const id = stub.addRecording('v3:call-5');
      for (const recordingUrl of [
        `https://evil.example.test/v2/recordings/${id}`,
        `http://169.254.169.254/v2/recordings/${id}`,
        `https://api.telnyx.com/v2/calls/${id}`,
        `https://api.telnyx.com/v2/recordings/${id}/../../calls`,
        `${stub.url}/storage/recordings/${id}.wav`,
        'not a url',
      ])
        await expect(carrier.deleteRecording({ callId: CALL_ID, recordingUrl })).rejects.toBeInstanceOf(CarrierRejectedError);
      expect(stub.requests).toEqual([]);
      expect(stub.recordings.has(id)).toBe(true);
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

  describe('a failed delete, on every adapter: retried or not as the carrier answered', () => {
    let server: http.Server;
    let url: string;
    /** The status the next DELETE is answered with, in its carrier's error envelope (none: the carrier's empty success). */
    let status = 204;
    const asked: string[] = [];
    const db = createDb('postgres://127.0.0.1:9/unused');
    const accountSid = 'AC' + '7'.repeat(32);
    beforeAll(async () => {
      server = http.createServer((req, res) => {
        asked.push(`${req.method} ${req.url}`);
        const twilio = req.url?.startsWith('/2010-04-01/');
        const body =
          status < 300
            ? ''
            : JSON.stringify(
                twilio ? { code: 20000 + status, message: 'refused', status } : { errors: [{ code: String(status), title: 'refused' }] },
              );
        res.writeHead(status, body ? { 'content-type': 'application/json' } : {});
        res.end(body);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.destroy();
    });

    /** Each adapter pointed at `base` (the scripted server, or a port nothing listens on), and a recording URL of it there. */
    const adapters = (base: string) => [
      {
        name: 'simulator',
        carrier: new SimulatorCarrier(base, 'key'),
        recordingUrl: `${base}/recordings/CA${'7'.repeat(32)}.wav`,
      },
      {
        name: 'twilio',
        carrier: new TwilioCarrier({
          account: { accountSid, authToken: 'token' },
          publicBaseUrl: 'http://127.0.0.1:9/base',
          mode: 'live',
          apiBaseUrl: base,
          relay: { send: async () => undefined },
          attempts: memoryCreateAttempts(),
        }),
        recordingUrl: `${base}/2010-04-01/Accounts/${accountSid}/Recordings/RE${'7'.repeat(32)}`,
      },
      {
        name: 'telnyx',
        carrier: new TelnyxCarrier(
          { apiKey: 'key', baseUrl: `${base}/v2`, connectionId: 'conn-1', messagingProfileId: 'profile-1', webhookUrl: `${base}/sink` },
          { db },
        ),
        recordingUrl: `${base}/v2/recordings/${'7'.repeat(8)}-0000-4000-8000-000000000000`,
      },
    ];
    /** What the delete came to: done, or the kind of error. */
    const outcome = async (carrier: { deleteRecording: TelnyxCarrier['deleteRecording'] }, recordingUrl: string) => {
      try {
        await carrier.deleteRecording({ callId: CALL_ID, recordingUrl });
        return 'done';
      } catch (err) {
        if (err instanceof CarrierAuthError) return 'auth';
        return err instanceof CarrierRejectedError ? 'refused' : 'retry';
      }
    };

    it('done on 2xx and 404; a CarrierAuthError on 401 and 403; a refusal on another 4xx; a plain error on 408, 429 and 5xx', async () => {
      const expected: Record<number, string> = {
        204: 'done',
        404: 'done',
        401: 'auth',
        403: 'auth',
        400: 'refused',
        408: 'retry',
        429: 'retry',
        500: 'retry',
        503: 'retry',
      };
      for (const { name, carrier, recordingUrl } of adapters(url)) {
        const seen: Record<number, string> = {};
        for (const answer of Object.keys(expected).map(Number)) {
          status = answer === 204 && name === 'telnyx' ? 200 : answer;
          asked.length = 0;
          seen[answer] = await outcome(carrier, recordingUrl);
          // One request each: the adapters leave retries to the activity that called.
          expect([name, answer, asked.length]).toEqual([name, answer, 1]);
          expect(asked[0]).toMatch(/^DELETE /);
        }
        expect([name, seen]).toEqual([name, expected]);
      }
    });

    it('a carrier that cannot be reached is a plain error (retried)', async () => {
      for (const { name, carrier, recordingUrl } of adapters('http://127.0.0.1:9'))
        expect([name, await outcome(carrier, recordingUrl)]).toEqual([name, 'retry']);
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
