import net from 'node:net';
import type WebSocket from 'ws';
import { MediaSocketServer, openExpectedStream } from '../../src/adapters/carrier/mediaSocketServer';
import { CarrierRejectedError } from '../../src/adapters/carrier/port';
import { verifyTwilioUpgrade } from '../../src/adapters/carrier/twilio/callbacks/verify';
import { TwilioMediaStream } from '../../src/adapters/carrier/twilio/media';
import { freePort } from '../../src/platform/net/freePort';
import { eventually } from '../support/eventually';
import { openTwilioSocket, twilioSocketSignature } from '../support/twilioStubSockets';

/** The worker's Media Streams listener: one signed upgrade per one-time URL, and Twilio's messages as the port's events. */
describe('Twilio Media Streams on the worker', () => {
  const account = { accountSid: `AC${'1'.repeat(32)}`, authToken: 'auth-token-0123456789abcdef' };

  it('refuses a forged upgrade (403) and a second one (404); takes the signed one; frames and marks carry the streamSid', async () => {
    const port = await freePort();
    const server = new MediaSocketServer(`ws://127.0.0.1:${port}/twilio/media`, port, '127.0.0.1');
    const expected = await server.expect({
      accept: TwilioMediaStream.accept,
      verify: (req, url) => verifyTwilioUpgrade({ accounts: [account], signature: req.headers['x-twilio-signature'] as string, url }).valid,
    });
    await expect(openTwilioSocket(expected.url, twilioSocketSignature('f'.repeat(32), expected.url))).rejects.toThrow(
      'upgrade refused with 403',
    );
    const twilio = await openTwilioSocket(expected.url, twilioSocketSignature(account.authToken, expected.url));
    const stream = await expected.opened(5_000);
    await expect(openTwilioSocket(expected.url, twilioSocketSignature(account.authToken, expected.url))).rejects.toThrow(
      'upgrade refused with 404',
    );
    const sent: Array<Record<string, unknown>> = [];
    twilio.on('message', (data) => sent.push(JSON.parse(String(data)) as Record<string, unknown>));
    const say = (message: object) => (twilio as WebSocket).send(JSON.stringify(message));
    say({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    say({ event: 'start', streamSid: 'MZ1', start: { streamSid: 'MZ1', callSid: 'CA1', tracks: ['inbound'] } });
    await stream.started;
    say({
      event: 'media',
      streamSid: 'MZ1',
      media: { track: 'inbound', chunk: '1', timestamp: '20', payload: Buffer.alloc(160, 7).toString('base64') },
    });
    const events = stream[Symbol.asyncIterator]();
    expect((await events.next()).value).toEqual({ type: 'media', sequence: 1, timestamp: 20, payload: Buffer.alloc(160, 7) });
    await stream.send(Buffer.alloc(160, 9));
    await stream.mark('m1');
    await stream.clear();
    await eventually(async () => (sent.length >= 3 ? true : undefined), 10_000, 'three messages at Twilio');
    expect(sent).toEqual([
      { event: 'media', streamSid: 'MZ1', media: { payload: Buffer.alloc(160, 9).toString('base64') } },
      { event: 'mark', streamSid: 'MZ1', mark: { name: 'm1' } },
      { event: 'clear', streamSid: 'MZ1' },
    ]);
    say({ event: 'stop', streamSid: 'MZ1', stop: { callSid: 'CA1' } });
    twilio.close(1000);
    await expect(stream.ended).resolves.toEqual({ reason: 'call_ended' });
  });
});

/** `openExpectedStream`: the carrier is asked for a stream on the URL, then its socket is awaited there. */
describe('opening an expected media stream', () => {
  let server: MediaSocketServer;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    server = new MediaSocketServer(`ws://127.0.0.1:${port}/media`, port, '127.0.0.1');
  });
  const accept = (ws: WebSocket) => ws;
  /** The carrier opening the URL's socket (unsigned: these expectations verify nothing). */
  const carrierOpens = (url: string) => openTwilioSocket(url, '');

  it("gives the socket its whole time from the carrier's answer, however slow the request was", async () => {
    // The test's clock, not the wall's: the request outlasts the socket's whole time, then the carrier answers.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    let carrier: WebSocket | undefined;
    try {
      const expectation = await server.expect({ accept });
      let answered!: () => void;
      const answer = new Promise<void>((resolve) => (answered = resolve));
      const opening = openExpectedStream(expectation, 2_000, () => answer);
      jest.advanceTimersByTime(5_000);
      answered();
      await answer;
      jest.advanceTimersByTime(1_900);
      carrier = await carrierOpens(expectation.url);
      await expect(opening).resolves.toBeDefined();
    } finally {
      jest.useRealTimers();
      carrier?.close();
    }
  });

  it('a request that failed without a refusal (timeout, lost answer) may have reached the carrier: its socket is still taken', async () => {
    const expectation = await server.expect({ accept });
    const opening = openExpectedStream(expectation, 2_000, async () => {
      throw new Error('timeout of 300ms exceeded');
    });
    const carrier = await carrierOpens(expectation.url);
    await expect(opening).resolves.toBeDefined();
    carrier.close();
  });

  it('a failed request whose socket never comes throws its own failure, and the URL is refused after', async () => {
    const expectation = await server.expect({ accept });
    await expect(
      openExpectedStream(expectation, 200, async () => {
        throw new Error('socket hang up');
      }),
    ).rejects.toThrow('socket hang up');
    await expect(carrierOpens(expectation.url)).rejects.toThrow('upgrade refused with 404');
  });

  it('a refusal is final at once: the URL is refused from then on', async () => {
    const expectation = await server.expect({ accept });
    await expect(
      openExpectedStream(expectation, 60_000, async () => {
        throw new CarrierRejectedError('Twilio refused to open a media stream: 400 (21220)');
      }),
    ).rejects.toThrow(CarrierRejectedError);
    await expect(carrierOpens(expectation.url)).rejects.toThrow('upgrade refused with 404');
  });

  it('a port that is taken: listening fails, and is tried again on the next stream rather than handing out URLs nobody serves', async () => {
    const taken = await freePort();
    const other = net.createServer();
    await new Promise<void>((resolve) => other.listen(taken, '127.0.0.1', resolve));
    const blocked = new MediaSocketServer(`ws://127.0.0.1:${taken}/media`, taken, '127.0.0.1');
    await expect(blocked.start()).rejects.toThrow(/EADDRINUSE/);
    await expect(blocked.expect({ accept })).rejects.toThrow(/EADDRINUSE/);
    await new Promise<void>((resolve) => other.close(() => resolve()));
    const expectation = await blocked.expect({ accept });
    const carrier = await carrierOpens(expectation.url);
    await expect(expectation.opened(1_000)).resolves.toBeDefined();
    carrier.close();
  });

  it('a socket that arrives before the carrier answers is the stream', async () => {
    const expectation = await server.expect({ accept });
    let carrier: WebSocket | undefined;
    const opening = openExpectedStream(expectation, 200, async () => {
      carrier = await carrierOpens(expectation.url);
    });
    await expect(opening).resolves.toBeDefined();
    carrier!.close();
  });
});
