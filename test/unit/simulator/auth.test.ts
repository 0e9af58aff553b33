import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CarrierRejectedError } from '../../../src/adapters/carrier/port';
import { SimulatorCarrier } from '../../../src/adapters/carrier/simulatorCarrier';
import { startSimulator } from '../../../simulator/app';
import { randomSimulatorCredentials, simulatorControl } from '../../../dev/simulator';

/**
 * The simulator's control API steers the simulated world (it can forget every live call) and its
 * callbacks must never become a way to post elsewhere (security review M10).
 */
describe('carrier simulator: control API credentials and callback targets', () => {
  const credentials = randomSimulatorCredentials();
  let sim: Awaited<ReturnType<typeof startSimulator>>;
  let control: ReturnType<typeof simulatorControl>;
  /** Stands for anything the simulator must not be made to call: it counts what reaches it. */
  let victim: http.Server;
  let victimUrl: string;
  let victimHits = 0;
  let api: http.Server;
  let apiUrl: string;

  const listen = async (handler: http.RequestListener) => {
    const server = http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };

  beforeAll(async () => {
    ({ server: victim, url: victimUrl } = await listen((req, res) => {
      victimHits += 1;
      req.resume();
      res.writeHead(200).end('{}');
    }));
    ({ server: api, url: apiUrl } = await listen((req, res) => {
      req.resume();
      res.writeHead(404).end('{}');
    }));
    sim = await startSimulator({ host: '127.0.0.1', port: 0, credentials, callbackBaseUrl: apiUrl });
    control = simulatorControl(sim.url, credentials.controlToken);
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => sim.server.close(() => resolve()));
    await new Promise<void>((resolve) => victim.close(() => resolve()));
    await new Promise<void>((resolve) => api.close(() => resolve()));
  });

  const guarded: Array<[string, string, unknown?]> = [
    ['GET', '/control/numbers'],
    ['POST', '/control/faults', { provision_numbers: 'error' }],
    ['GET', '/control/holds'],
    ['POST', '/control/holds/release'],
    ['GET', '/control/calls'],
    ['POST', '/control/calls/reset'],
    ['DELETE', '/control/calls/outcomes'],
    ['POST', '/control/calls/inbound', { from: '+14155550142', to: '+12125552999' }],
    ['POST', '/control/speech', { words_per_second: 1 }],
    ['GET', '/control/messages'],
    ['POST', '/control/messages/reset'],
    ['POST', '/control/messages/inbound', { from: '+14155550142', to: '+12125552999', text: 'START' }],
    ['GET', '/control/processor/charges'],
    ['POST', '/control/processor/reset'],
    ['POST', '/control/model/reset'],
    ['GET', '/control/model/requests'],
    ['GET', '/control/calls/some-call/audio'],
    ['GET', '/recordings/CA0123.wav'],
  ];
  // The carrier's customer reads its own recordings with its carrier key (as a carrier's account does; the portal plays them).
  const readableWithCarrierKey = (path: string, what: string) => path.startsWith('/recordings/') && what === 'the carrier API key';

  it('refuses every control request (and the recordings, but to the carrier key) without the control token, changing nothing', async () => {
    await control('POST', '/control/calls/outcomes', { to: '+14155552345', outcome: 'busy' });
    const wrongs: Array<[string, Record<string, string>]> = [
      ['no credentials', {}],
      ['the carrier API key', { authorization: `Bearer ${credentials.carrierApiKey}` }],
      ['the webhook secret', { authorization: `Bearer ${credentials.webhookSecret}` }],
      ['a token with a suffix', { authorization: `Bearer ${credentials.controlToken}x` }],
    ];
    for (const [method, path, body] of guarded) {
      for (const [what, headers] of wrongs) {
        const res = await fetch(`${sim.url}${path}`, {
          method,
          headers: { 'content-type': 'application/json', ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const expected = readableWithCarrierKey(path, what) ? 404 : 401;
        expect({ method, path, what, status: res.status }).toEqual({ method, path, what, status: expected });
      }
    }
    expect(sim.state.calls.outcomes.get('+14155552345')).toMatchObject({ outcome: 'busy' });
    expect(sim.state.provisionFault).toBe('normal');
    expect(sim.state.calls.wordsPerSecond).not.toBe(1);
    expect(sim.state.calls.list()).toEqual([]);
    expect(sim.state.messages.list()).toEqual([]);
    // With the token it works; the health check stays open for orchestrators.
    expect((await control('GET', '/control/calls/outcomes')).status).toBe(200);
    expect((await fetch(`${sim.url}/healthz`)).status).toBe(200);
  });

  it('posts callbacks only under the configured callback base', async () => {
    const carrier = new SimulatorCarrier(sim.url, credentials.carrierApiKey);
    for (const eventsUrl of [
      `${victimUrl}/carrier/events`,
      'http://169.254.169.254/latest/meta-data',
      `${apiUrl}.evil.test/carrier/events`,
      `http://user:pass@${new URL(apiUrl).host}/carrier/events`,
    ]) {
      await expect(
        carrier.placeCall({ callId: `c-${victimHits}-${eventsUrl.length}`, from: '+12025552001', to: '+14155552345', eventsUrl }),
      ).rejects.toBeInstanceOf(CarrierRejectedError);
    }
    await expect(
      carrier.sendSms({
        messageId: 'm-1',
        from: '+12025552001',
        to: '+14155552345',
        text: 'hi',
        statusUrl: `${victimUrl}/carrier/messages`,
      }),
    ).rejects.toBeInstanceOf(CarrierRejectedError);
    for (const path of ['/control/calls/inbound', '/control/messages/inbound']) {
      const res = await control('POST', path, {
        from: '+14155550142',
        to: '+12125552999',
        text: 'STOP',
        events_url: `${victimUrl}/control/calls/reset`,
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/under the callback base/);
    }
    expect(sim.state.calls.list()).toEqual([]);
    expect(victimHits).toBe(0);
    // Without events_url the simulator uses its callback base.
    const announced = await control('POST', '/control/messages/inbound', { from: '+14155550142', to: '+12125552999', text: 'hi' });
    expect(announced.status).toBe(201);
    expect(await announced.json()).toMatchObject({ delivery: 'refused', status: 404 });
  });

  it('with no callback base configured it calls nobody', async () => {
    const bare = await startSimulator({ host: '127.0.0.1', port: 0, credentials });
    try {
      const res = await simulatorControl(bare.url, credentials.controlToken)('POST', '/control/calls/inbound', {
        from: '+14155550142',
        to: '+12125552999',
        events_url: `${victimUrl}/carrier/events`,
      });
      expect(res.status).toBe(400);
      expect(victimHits).toBe(0);
    } finally {
      await new Promise<void>((resolve) => bare.server.close(() => resolve()));
    }
  });
});
