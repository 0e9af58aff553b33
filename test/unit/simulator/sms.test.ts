import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CarrierRejectedError, type CarrierMessageEvent } from '../../../src/adapters/carrier/port';
import { SimulatorCarrier } from '../../../src/adapters/carrier/simulatorCarrier';
import { verifyCarrierCallback } from '../../../src/adapters/carrier/callbacks/signature';
import { startSimulator } from '../../../simulator/app';
import { randomSimulatorCredentials, simulatorControl } from '../../../dev/simulator';
import { until as waitUntil } from '../../support/waits';

/** The SMS side of the carrier simulator, through the adapter Switchboard uses and the control API. */
describe('carrier simulator: messages', () => {
  const credentials = randomSimulatorCredentials();
  let simulator: http.Server;
  let url: string;
  let carrier: SimulatorCarrier;
  let control: ReturnType<typeof simulatorControl>;
  let receiver: http.Server;
  let statusUrl: string;
  let events: CarrierMessageEvent[] = [];
  /** What the receiver answers; 503 the first `failFirst` times. */
  let answer = 200;
  let failFirst = 0;

  beforeAll(async () => {
    const sim = await startSimulator({ host: '127.0.0.1', port: 0, credentials });
    simulator = sim.server;
    url = sim.url;
    control = simulatorControl(url, credentials.controlToken);
    carrier = new SimulatorCarrier(url, credentials.carrierApiKey);
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const signed = verifyCarrierCallback({ secret: credentials.webhookSecret, headers: req.headers, rawBody: Buffer.concat(chunks) });
        if (!signed.valid || req.headers.authorization !== undefined) return void res.writeHead(401).end();
        if (failFirst > 0) {
          failFirst -= 1;
          return void res.writeHead(503).end();
        }
        events.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as CarrierMessageEvent);
        res.writeHead(answer).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    statusUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/carrier/messages`;
    sim.callbacks.setBaseUrl(new URL(statusUrl).origin);
  });
  afterAll(async () => {
    await new Promise((resolve) => simulator.close(resolve));
    await new Promise((resolve) => receiver.close(resolve));
  });
  beforeEach(async () => {
    events = [];
    answer = 200;
    failFirst = 0;
    await control('POST', '/control/messages/reset');
  });

  const until = (probe: () => boolean) => waitUntil(probe, 'the SMS simulator', { intervalMs: 20, timeoutMs: 2_000 });
  const setOutcome = (to: string, outcome: string) => control('POST', '/control/messages/outcomes', { to, outcome });

  it('sends once per message id and reports sent, then delivered, in order', async () => {
    const request = { messageId: crypto.randomUUID(), from: '+12025550100', to: '+14155550100', text: 'hello', statusUrl };
    const first = await carrier.sendSms(request);
    const again = await carrier.sendSms(request);
    expect(again.carrierMessageId).toBe(first.carrierMessageId);
    await until(() => events.length === 2);
    expect(events.map((e) => e.type === 'sms.status' && [e.message_id, e.status])).toEqual([
      [request.messageId, 'sent'],
      [request.messageId, 'delivered'],
    ]);
    const { messages } = (await (await control('GET', '/control/messages')).json()) as {
      messages: Array<{ message_id: string; requests: number; status: string }>;
    };
    expect(messages).toEqual([expect.objectContaining({ message_id: request.messageId, requests: 2, status: 'delivered' })]);
    // The same id for another message is refused.
    await expect(carrier.sendSms({ ...request, text: 'different' })).rejects.toBeInstanceOf(CarrierRejectedError);
  });

  it('plays each destination outcome: reject at once, fail, undelivered', async () => {
    await setOutcome('+14155550101', 'reject');
    await setOutcome('+14155550102', 'fail');
    await setOutcome('+14155550103', 'undelivered');
    await expect(
      carrier.sendSms({ messageId: crypto.randomUUID(), from: '+12025550100', to: '+14155550101', text: 'x', statusUrl }),
    ).rejects.toBeInstanceOf(CarrierRejectedError);
    const failed = crypto.randomUUID();
    const undelivered = crypto.randomUUID();
    await carrier.sendSms({ messageId: failed, from: '+12025550100', to: '+14155550102', text: 'x', statusUrl });
    await carrier.sendSms({ messageId: undelivered, from: '+12025550100', to: '+14155550103', text: 'x', statusUrl });
    await until(() => events.length === 3);
    const of = (id: string) =>
      events
        .filter((e) => e.type === 'sms.status' && e.message_id === id)
        .map((e) => e.type === 'sms.status' && [e.status, e.error_code ?? null]);
    expect(of(failed)).toEqual([['failed', 'carrier_failure']]);
    expect(of(undelivered)).toEqual([
      ['sent', null],
      ['undelivered', 'unreachable_handset'],
    ]);
  });

  it('delivers inbound SMS, retrying 5xx and giving up at once on 4xx', async () => {
    failFirst = 2;
    const inbound = (text: string) =>
      control('POST', '/control/messages/inbound', { from: '+14155550104', to: '+12025550100', text, events_url: statusUrl }).then((r) =>
        r.json(),
      );
    expect(await inbound('hello there')).toMatchObject({ delivery: 'delivered', status: 200 });
    expect(events).toEqual([
      expect.objectContaining({ type: 'sms.received', from: '+14155550104', to: '+12025550100', text: 'hello there' }),
    ]);
    answer = 404;
    expect(await inbound('anyone?')).toMatchObject({ delivery: 'refused', status: 404 });
    expect(events).toHaveLength(2);
  });

  it('refuses malformed requests', async () => {
    const bad = await fetch(`${url}/carrier/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credentials.carrierApiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message_id: 'x', from: '12', to: '+14155550100', text: 'x', status_url: statusUrl }),
    });
    expect(bad.status).toBe(400);
    const unauthenticated = await fetch(`${url}/carrier/v1/messages`, { method: 'POST', body: '{}' });
    expect(unauthenticated.status).toBe(401);
  });
});
