import { createSwitchboardClient, SwitchboardApiError } from '../../sdk/client';
import { eventually, untilLineActive } from '../support/harness';
import { simulator } from '../support/simulatorControl';
import { useSuite } from '../support/suite';

/** The README's "Try it", as a developer writes it with the typed client (sdk/client) against a running API. */
describe('typed client: the README flow', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, tenant } = ctx;
  const sim = simulator(ctx);

  it('creates a line, answers an inbound SMS and reads the conversation; a refusal is a typed error', async () => {
    const switchboard = createSwitchboardClient({ baseUrl: h.apiUrl, apiKey: tenant.keys.test });

    const created = await switchboard.POST('/api/v1/lines', { body: { name: 'Support', mode: 'webhook', webhook_url: ctx.receiver.url } });
    let line = created.data!.line;
    if (line.status !== 'active') {
      const id = line.id;
      line = await untilLineActive(
        h.temporal,
        id,
        async () => (await switchboard.GET('/api/v1/lines/{id}', { params: { path: { id } } })).data!.line,
      );
    }
    const number = line.phone_number!;

    await sim.messages.inbound('+14155550142', number, 'Hi there');
    const sent = await switchboard.POST('/api/v1/messages', {
      body: { line_id: line.id, to: '+14155550142', text: 'Hello!' },
      headers: { 'Idempotency-Key': 'readme-hello' },
    });
    expect(sent.response.status).toBe(201);
    expect(sent.data).toMatchObject({ line_id: line.id, to: '+14155550142', text: 'Hello!' });
    expect(sent.data!.to).toBe('+14155550142');

    // The same key again replays the first answer instead of sending twice.
    const replay = await switchboard.POST('/api/v1/messages', {
      body: { line_id: line.id, to: '+14155550142', text: 'Hello!' },
      headers: { 'Idempotency-Key': 'readme-hello' },
    });
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data!.id).toBe(sent.data!.id);

    const conversation = await eventually(async () => {
      const { data } = await switchboard.GET('/api/v1/conversations/{lineId}/{phoneNumber}', {
        params: { path: { lineId: line.id, phoneNumber: '+14155550142' } },
      });
      // Read once the reply is delivered: the customer's flow ends with nothing of it still on its way.
      const delivered = data?.messages.some((m) => m.text === 'Hello!' && m.status === 'delivered');
      return data && data.messages.length === 2 && delivered ? data : undefined;
    });
    expect(conversation.messages.map((m) => m.text)).toEqual(['Hello!', 'Hi there']); // newest first

    // Texting a number that never wrote to the line is refused with the spec's code, as a typed error.
    const refused = await switchboard
      .POST('/api/v1/messages', { body: { line_id: line.id, to: '+14155550199', text: 'Unsolicited' } })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(SwitchboardApiError);
    expect(refused).toMatchObject({ status: 403, code: 'conversation_window_expired' });
    expect((refused as SwitchboardApiError).requestId).toBeTruthy();
  });

  it('chooses the number with typed fields, and a number nobody has is a typed number_unavailable (issue 26)', async () => {
    const switchboard = createSwitchboardClient({ baseUrl: h.apiUrl, apiKey: tenant.keys.test });
    const body = {
      name: 'Toll-free',
      mode: 'webhook' as const,
      webhook_url: ctx.receiver.url,
      number_type: 'toll_free' as const,
      area_code: '888',
    };
    const created = await switchboard.POST('/api/v1/lines', { body });
    expect(created.data!.line).toMatchObject({ number_type: 'toll_free', area_code: '888', number_source: 'purchased' });
    const refused = await switchboard
      .POST('/api/v1/lines', { body: { ...body, number_type: 'local', area_code: '564' } })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(SwitchboardApiError);
    expect(refused).toMatchObject({ status: 422, code: 'number_unavailable', details: [{ field: 'area_code' }] });
  });
});
