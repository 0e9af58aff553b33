import { customer } from '../support/customer';
import { eventually, useHarness, webhookLine, type Harness, type Tenant } from '../support/harness';
import { startTwilioStub, type TwilioStub } from '../support/twilioStub';
import { TWILIO_TEST_NUMBER } from '../../src/adapters/carrier/twilio/twilioCarrier';
import type { Config } from '../../src/platform/config';

/**
 * The test environment on Twilio's test credentials (the stub plays the test account): a test key
 * buys only Twilio's test number, never searches inventory, and the live environment stays on its
 * own carrier (the simulator here).
 */
describe('Twilio carrier (test environment, test credentials)', () => {
  let stub: TwilioStub;
  const twilio: Config['twilio'] = {};
  beforeAll(async () => {
    // Test credentials: only POST IncomingPhoneNumbers, Messages and Calls; anything else is 403 (20008).
    stub = await startTwilioStub({ testCredentials: true });
    twilio.test = { accountSid: stub.accountSid, authToken: stub.authToken };
    twilio.apiBaseUrl = stub.url;
  });
  afterAll(async () => stub?.close());

  const ctx = useHarness({ worker: true, overrides: { carrierProviders: { test: 'twilio', live: 'simulator' }, twilio } });
  let h: Harness;
  let tenant: Tenant;
  beforeEach(() => {
    ({ h, tenant } = ctx);
  });
  const { lines, messages, consent } = customer(ctx, { line: () => webhookLine() });

  it('a test line gets the test number without an inventory search; its SMS goes out from it; a live line stays off Twilio', async () => {
    const line = await lines.create();
    expect(line.phone_number).toBe(TWILIO_TEST_NUMBER);
    expect(stub.requests.filter((r) => r.path.includes('AvailablePhoneNumbers'))).toEqual([]);
    expect([...stub.numbers.values()].map((n) => n.phoneNumber)).toEqual([TWILIO_TEST_NUMBER]);

    const to = '+14155550120';
    expect((await consent.record(line.id, to, 'explicit_outbound', 'api')).status).toBe(201);
    const sent = await messages.send({ line_id: line.id, to, text: 'Test traffic' });
    expect(sent.status).toBe(201);
    await eventually(
      async () => [...stub.messages.values()].find((m) => m.to === to && m.from === TWILIO_TEST_NUMBER),
      20_000,
      'the message',
    );

    const liveLine = await lines.create({}, tenant.keys.live);
    expect(liveLine.phone_number).not.toBe(TWILIO_TEST_NUMBER);
    expect(stub.numbers.size).toBe(1);

    // A send whose answer is lost is sent again by the activity's retry: test credentials cannot list what the
    // first attempt created (403), and a test message reaches no phone and costs nothing.
    stub.loseNextCreateAnswer('Messages');
    const again = await messages.send({ line_id: line.id, to, text: 'Sent twice, harmlessly' });
    const carrierId = await eventually(
      async () => (await h.db('messages').where({ id: again.body.id }).first())?.carrier_message_id ?? undefined,
    );
    expect([...stub.messages.values()].filter((m) => m.body === 'Sent twice, harmlessly').map((m) => m.sid)).toEqual([
      expect.any(String),
      carrierId,
    ]);
    expect(stub.requests.filter((r) => r.method !== 'POST')).toEqual([]);

    // The test number is the deployment's only Twilio test line: give it back for the next run.
    expect((await lines.release(line.id)).status).toBe(200);
    await eventually(async () => ((await h.db('lines').where({ id: line.id }).first())?.status === 'released' ? true : undefined));
  });
});
