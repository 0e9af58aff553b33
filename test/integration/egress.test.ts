import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { eventually, untilLineActive, webhookLine } from '../support/harness';
import { useSuite } from '../support/suite';

/**
 * H2 (SSRF) as an attacker sees it, through the public API: customer URLs that lead to internal
 * addresses or to Switchboard's own services are refused when saved, and again when connecting.
 * `strict` runs with the operator allow-list off (production's default); `open` with the suite's
 * loopback allow-list, as local development does.
 */
describe('customer URLs cannot reach internal addresses (SSRF)', () => {
  const { h: strict, tenant, receiver } = useSuite({ worker: true, receiver: true, overrides: { outboundAllowedNetworks: [] } });
  const { h: open } = useSuite({ tenant: 'none' });

  /** The review's forms: loopback services, metadata, IPv6 loopback, hex/decimal/octal IPv4, IPv4-mapped IPv6, a name for loopback, private ranges. */
  const HOSTILE = [
    'http://127.0.0.1:8090/control/calls/reset',
    'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
    'http://[::1]:7233/',
    'http://0x7f000001:5432/',
    'http://2130706433:8090/control/calls/reset',
    'http://0177.0.0.1:8090/control/calls/reset',
    'http://[::ffff:127.0.0.1]:8090/control/processor/reset',
    'http://[::ffff:a9fe:a9fe]/latest/meta-data/',
    'http://localhost:8090/control/calls/reset',
    'http://10.0.0.5/admin',
    'http://100.64.0.1/',
    'http://[fd00::1]/',
    'http://0.0.0.0:8080/api/v1/lines',
  ];
  const refusedField = (field: string) => ({
    code: 'validation_error',
    details: [{ field, message: expect.stringMatching(/ is an? .+; only public addresses can be reached$/) }],
  });

  it.each(HOSTILE)('%s is refused when saved, in every URL field, and nothing is written', async (url) => {
    const key = tenant.keys.test;
    const asWebhook = await strict.request('POST', '/api/v1/lines', { key, body: webhookLine({ webhook_url: url }) });
    expect(asWebhook.status).toBe(422);
    expect(asWebhook.body.error).toMatchObject(refusedField('webhook_url'));
    const asCallback = await strict.request('POST', '/api/v1/lines', {
      key,
      body: { name: 'Hosted', mode: 'hosted', system_prompt: 'Be brief.', status_callback_url: url },
    });
    expect(asCallback.body.error).toMatchObject(refusedField('status_callback_url'));
    const asAudio = await strict.request('POST', '/api/v1/lines', {
      key,
      body: { name: 'Audio', mode: 'audio', audio_handler_url: url.replace(/^http/, 'ws') },
    });
    expect(asAudio.body.error).toMatchObject(refusedField('audio_handler_url'));
    const asDefault = await strict.request('PATCH', '/api/v1/settings', { key, body: { default_webhook_url: url } });
    expect(asDefault.status).toBe(422);
    expect(asDefault.body.error).toMatchObject(refusedField('default_webhook_url'));

    expect((await strict.request('GET', '/api/v1/lines', { key })).body.lines).toEqual([]);
    expect((await strict.request('GET', '/api/v1/settings', { key })).body.default_webhook_url).toBeNull();
  });

  it('a PATCH to a hostile URL is refused and leaves the line as it was; public and not-yet-resolvable names are accepted', async () => {
    const key = tenant.keys.test;
    const line = (await strict.request('POST', '/api/v1/lines', { key, body: webhookLine() })).body.line;
    expect(line.webhook_url).toBe('https://agent.example.test/hooks');
    const refused = await strict.request('PATCH', `/api/v1/lines/${line.id}`, {
      key,
      body: { webhook_url: 'http://localhost:7233/', status_callback_url: 'http://[::1]/cb' },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.details.map((d: { field: string }) => d.field)).toEqual(['webhook_url', 'status_callback_url']);
    expect((await strict.request('GET', `/api/v1/lines/${line.id}`, { key })).body.line).toMatchObject({
      webhook_url: 'https://agent.example.test/hooks',
      status_callback_url: null,
    });
  });

  it('live lines need https (wss), unless the operator allow-list admits the host', async () => {
    const key = tenant.keys.live;
    const plain = await strict.request('POST', '/api/v1/lines', {
      key,
      body: webhookLine({ webhook_url: 'http://agent.example.test/hooks' }),
    });
    expect(plain.body.error).toMatchObject({
      code: 'validation_error',
      details: [{ field: 'webhook_url', message: 'Must use https in the live environment' }],
    });
    const ws = await strict.request('POST', '/api/v1/lines', {
      key,
      body: { name: 'Audio', mode: 'audio', audio_handler_url: 'ws://audio.example.test/stream' },
    });
    expect(ws.body.error).toMatchObject({ details: [{ field: 'audio_handler_url', message: 'Must use wss in the live environment' }] });
    const settings = await open.request('PATCH', '/api/v1/settings', { key, body: { default_webhook_url: receiver.url } });
    expect(settings.status).toBe(200);
  });

  it('with the allow-list on, Switchboard’s own services stay refused: the carrier simulator, the API, Temporal, Postgres', async () => {
    const key = tenant.keys.test;
    const own = [
      `${open.simulator.url}/control/calls/reset`,
      `${open.apiUrl}/api/v1/lines`,
      `http://${open.config.temporalAddress}/`,
      `http://127.0.0.1:${new URL(open.config.databaseUrl!).port}/`,
      // The simulator answers on every local address, so its port is refused on all of them.
      `http://localhost:${new URL(open.simulator.url).port}/control/calls/reset`,
    ];
    for (const url of own) {
      const res = await open.request('PATCH', '/api/v1/settings', { key, body: { default_webhook_url: url } });
      expect(res.status).toBe(422);
      expect(res.body.error.details[0].message).toMatch(
        /is an address of Switchboard's own services; only public addresses can be reached$/,
      );
    }
    // Another loopback port (the customer's own receiver in development) is admitted.
    expect((await open.request('PATCH', '/api/v1/settings', { key, body: { default_webhook_url: receiver.url } })).status).toBe(200);
  });

  describe('checked again when connecting', () => {
    const receiverHost = () => `localhost:${new URL(receiver.url).port}`;

    it('a URL saved while allowed but refused now (DNS rebinding, or the allow-list removed) fails the delivery before any request', async () => {
      const key = tenant.keys.test;
      const line = (await strict.request('POST', '/api/v1/lines', { key, body: webhookLine() })).body.line;
      // Saved through the development API, whose allow-list admits loopback.
      const saved = await open.request('PATCH', `/api/v1/lines/${line.id}`, {
        key,
        body: { webhook_url: `http://${receiverHost()}/hooks` },
      });
      expect(saved.status).toBe(200);
      const test = await strict.request('POST', '/api/v1/webhooks/test', { key, body: { line_id: line.id } });
      expect(test.body.delivery).toMatchObject({ status: 'failed', http_status: null, response_body: null });
      expect(test.body.delivery.error_message).toMatch(/^egress_refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/);

      // The same with an IP literal, which skips name resolution, on a lifecycle event's retried delivery.
      await open.request('PATCH', `/api/v1/lines/${line.id}`, { key, body: { webhook_url: receiver.url } });
      const literal = await strict.request('POST', '/api/v1/webhooks/test', { key, body: { line_id: line.id } });
      expect(literal.body.delivery).toMatchObject({ status: 'failed', error_message: 'egress_refused: 127.0.0.1 is a loopback address' });
      expect(receiver.requests).toHaveLength(0);
      const log = await strict.request('GET', `/api/v1/webhooks/deliveries?line_id=${line.id}`, { key });
      expect(log.body.deliveries.map((d: { status: string }) => d.status)).toEqual(['failed', 'failed']);
    });

    it('the audio WebSocket is vetted too: the relay never connects and the call ends with audio_handler_unavailable', async () => {
      const customer = new WebSocketServer({ port: 0, host: '127.0.0.1' });
      await new Promise((resolve) => customer.once('listening', resolve));
      let connections = 0;
      customer.on('connection', () => (connections += 1));
      try {
        const key = tenant.keys.test;
        const line = (
          await strict.request('POST', '/api/v1/lines', {
            key,
            body: { name: 'Audio', mode: 'audio', audio_handler_url: 'wss://audio.example.test/stream' },
          })
        ).body.line;
        const port = (customer.address() as AddressInfo).port;
        expect(
          (await open.request('PATCH', `/api/v1/lines/${line.id}`, { key, body: { audio_handler_url: `ws://localhost:${port}/agent` } }))
            .status,
        ).toBe(200);
        await untilLineActive(
          strict.temporal,
          line.id,
          async () => (await strict.request('GET', `/api/v1/lines/${line.id}`, { key })).body.line,
        );
        const placed = await strict.request('POST', '/api/v1/calls', { key, body: { line_id: line.id, to_number: '+14155552674' } });
        expect(placed.status).toBe(201);
        const ended = await eventually(
          async () => {
            const call = (await strict.request('GET', `/api/v1/calls/${placed.body.call.id}`, { key })).body.call;
            return call.status === 'completed' ? call : undefined;
          },
          30_000,
          'the call to end',
        );
        expect(ended.end_cause).toBe('audio_handler_unavailable');
        expect(connections).toBe(0);
      } finally {
        await new Promise((resolve) => customer.close(resolve));
      }
    }, 45_000);
  });
});
