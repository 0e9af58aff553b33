import fs from 'node:fs/promises';
import path from 'node:path';
import { callPrefix } from '../../src/adapters/storage/port';
import { customer } from '../support/customer';
import { createTenant, eventually } from '../support/harness';
import { spokenCalls } from '../support/simulatorControl';
import { useSuite } from '../support/suite';

/**
 * Issue 32 item 5 (docs/decisions/recordings.md "Redaction"): with `recordings.redaction` set, what the caller says
 * is redacted before it is written, so the call's row, the API's transcript and the copy in the recordings store
 * hold markers, never the card number, SSN, email or phone number said; with `webhooks` the `message` the agent
 * receives is redacted too. A rule that does not parse is refused with the validation envelope.
 */
describe('transcript redaction', () => {
  const ctx = useSuite({ worker: true, receiver: true });
  const { h, tenant, receiver } = ctx;
  const { lines, calls } = customer(ctx);
  const { sim, speech } = spokenCalls(ctx);

  // What the caller says: a Luhn-valid card number, an SSN, an email, a phone number, an order id (a custom rule)
  // and a 16-digit number failing Luhn, which is no card number and stays.
  const CARD = '4242 4242 4242 4242';
  const SSN = '123-45-6789';
  const EMAIL = 'jo.ann@example.com';
  const PHONE = '(646) 555-0188';
  const ORDER = 'ORD-123456';
  const NOT_A_CARD = '1234 5678 9012 3456';
  const SECRETS = [CARD, CARD.replace(/ /g, ''), SSN, EMAIL, PHONE, '6465550188', ORDER];
  const FIRST = `My card is ${CARD} and my social is ${SSN}.`;
  const SECOND = `Mail ${EMAIL} or call ${PHONE} about ${ORDER}, reference ${NOT_A_CARD}.`;

  const redaction = (webhooks: boolean) => ({
    kinds: ['card_number', 'us_ssn', 'email', 'phone_number'],
    custom: [{ name: 'order_id', pattern: 'ORD-\\d{6}' }],
    webhooks,
  });
  const patchSettings = (body: unknown, key = tenant.keys.test) => h.request('PATCH', '/api/v1/settings', { key, body });

  /** A webhook-mode call on which the caller says FIRST then SECOND, hung up once both are in the transcript. */
  async function talkedCall(): Promise<string> {
    const line = await lines.create({ mode: 'webhook', webhook_url: receiver.url });
    const id = (await calls.place(line.id)).body.call.id as string;
    await calls.untilStatus(id, ['in_progress']);
    await sim.calls.say(id, FIRST);
    await messageOf(id, 1);
    await sim.calls.say(id, SECOND);
    await messageOf(id, 2);
    await calls.untilTranscript(id, 2);
    expect((await calls.hangUp(id)).status).toBe(200);
    return id;
  }
  /** The `n`th `message` the agent received for the call. */
  const messageOf = (callId: string, n: number) =>
    eventually(
      async () => receiver.requests.filter((r) => r.body.event === 'message' && r.body.call_id === callId)[n - 1],
      20_000,
      `message ${n} of call ${callId}`,
    );
  /** Every file the store holds of the call, as bytes read from its directory (the filesystem store of the harness). */
  const storedFiles = async (callId: string) => {
    const dir = path.join(h.config.recordings.dir, callPrefix({ workspaceId: tenant.workspaceId, environment: 'test', callId }));
    const names = (await fs.readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    return Promise.all(names.map((entry) => fs.readFile(path.join(entry.parentPath, entry.name), 'utf8')));
  };
  const untilTranscriptStored = (callId: string) =>
    eventually(async () => h.db('call_objects').where({ call_id: callId, kind: 'transcript' }).first(), 30_000, 'the stored transcript');
  const expectNoSecret = (text: string, what: string) => {
    for (const secret of SECRETS) if (text.includes(secret)) throw new Error(`${what} holds ${secret}`);
  };

  it('redacts the transcript before it is written, in the row, the API and the store, and the message too with webhooks', async () => {
    const set = await patchSettings({ recordings: { redaction: redaction(true) } });
    expect(set.status).toBe(200);
    expect(set.body.recordings.redaction).toEqual(redaction(true));
    expect((await h.request('GET', '/api/v1/settings', { key: tenant.keys.test })).body.recordings.redaction).toEqual(redaction(true));

    const id = await talkedCall();
    const call = await calls.get(id);
    expect(call.transcript!.map((entry) => entry.text)).toEqual([
      'My card is [REDACTED:card_number] and my social is [REDACTED:us_ssn].',
      `Mail [REDACTED:email] or call [REDACTED:phone_number] about [REDACTED:order_id], reference ${NOT_A_CARD}.`,
    ]);
    const [first, second] = call.transcript! as Array<{
      text: string;
      redactions?: Array<{ kind: string; start: number; length: number }>;
    }>;
    expect(first.redactions).toEqual([
      { kind: 'card_number', start: 11, length: '[REDACTED:card_number]'.length },
      { kind: 'us_ssn', start: 51, length: '[REDACTED:us_ssn]'.length },
    ]);
    expect(second.redactions!.map((r) => r.kind)).toEqual(['email', 'phone_number', 'order_id']);
    for (const entry of [first, second])
      for (const r of entry.redactions!)
        expect(
          Array.from(entry.text)
            .slice(r.start, r.start + r.length)
            .join(''),
        ).toBe(`[REDACTED:${r.kind}]`);

    // The agent heard the markers: the message's text and its context.
    const message = await messageOf(id, 2);
    expect(message.body.text).toBe(second.text);
    expect((message.body.context as Array<{ text: string }>).map((entry) => entry.text)).toEqual([first.text, second.text]);

    // Nothing of what was said is kept anywhere: the call's row, its events and deliveries, the store's files.
    const row = await h.db.raw('select transcript::text as t from calls where id = ?', [id]);
    expectNoSecret(row.rows[0].t, 'the calls row');
    expect(row.rows[0].t).toContain(NOT_A_CARD);
    const events = await h.db.raw('select payload::text as p from webhook_events where call_id = ?', [id]);
    for (const event of events.rows) expectNoSecret(event.p, 'a webhook event');
    const deliveries = await h.db('webhook_deliveries').where({ call_id: id }).select('request_body');
    expect(deliveries.length).toBeGreaterThan(0);
    for (const delivery of deliveries) expectNoSecret(JSON.stringify(delivery.request_body), 'a delivery');
    for (const request of receiver.requests.filter((r) => r.body.call_id === id)) expectNoSecret(request.rawBody, 'a webhook payload');

    await untilTranscriptStored(id);
    const files = await storedFiles(id);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expectNoSecret(file, 'a stored file');
    const parsed = files.map((file): { call_id?: string; transcript?: unknown } | undefined => {
      try {
        return JSON.parse(file);
      } catch {
        return undefined;
      }
    });
    const stored = parsed.find((json) => json?.call_id === id && Array.isArray(json.transcript))!;
    expect(stored.transcript).toEqual(call.transcript);
  });

  it('without webhooks the agent hears the caller as said, and the transcript is still redacted', async () => {
    expect((await patchSettings({ recordings: { redaction: redaction(false) } })).status).toBe(200);
    const id = await talkedCall();
    expect((await messageOf(id, 1)).body.text).toBe(FIRST);
    const call = await calls.get(id);
    expectNoSecret(JSON.stringify(call.transcript), 'the API transcript');
    expect(call.transcript![0].text).toBe('My card is [REDACTED:card_number] and my social is [REDACTED:us_ssn].');
    // What was sent is recorded redacted: the message events and their deliveries.
    const messages = await h.db('webhook_events').where({ call_id: id, event_type: 'message' }).select('id', 'payload');
    expect(messages).toHaveLength(2);
    for (const event of messages) expectNoSecret(JSON.stringify(event.payload), 'a recorded message');
    expect(messages.map((event) => event.payload.text)).toEqual(call.transcript!.map((entry) => entry.text));
    const deliveries = await h
      .db('webhook_deliveries')
      .whereIn(
        'event_id',
        messages.map((event) => event.id),
      )
      .select('request_body');
    expect(deliveries).toHaveLength(2);
    for (const delivery of deliveries) expectNoSecret(JSON.stringify(delivery.request_body), 'a recorded delivery');
    // The store's copy of the transcript is redacted as well.
    await untilTranscriptStored(id);
    for (const file of await storedFiles(id)) expectNoSecret(file, 'a stored file');
  });

  it('redacts the agent’s words too: its reply in the transcript and, with webhooks, the interrupted event’s heard part', async () => {
    expect((await patchSettings({ recordings: { redaction: redaction(true) } })).status).toBe(200);
    const line = await lines.create({ mode: 'webhook', webhook_url: receiver.url });
    const REPLY = `I have ${EMAIL} on file, one two three four five six seven eight nine ten eleven twelve`;
    receiver.replyTo('What do you have on file?', REPLY);
    const id = (await calls.place(line.id)).body.call.id as string;
    await calls.untilStatus(id, ['in_progress']);
    h.simulator.state.calls.wordsPerSecond = 4;
    await sim.calls.say(id, 'What do you have on file?');
    // The caller talks over the reply once it has heard the address and a few words more.
    await eventually(async () => (speech(id).some((s) => s.played_text.includes('three')) ? true : undefined), 20_000, 'the reply heard');
    await sim.calls.bargeIn(id, 'Stop there');
    const interrupted = await eventually(async () =>
      receiver.requests.find((r) => r.body.event === 'interrupted' && r.body.call_id === id),
    );
    const heard = String(interrupted.body.partial_response_text);
    expect(heard).toMatch(/^I have \[REDACTED:email\] on file, one two three/);
    const call = await eventually(async () => {
      const current = await calls.get(id);
      return current.transcript?.some((entry) => entry.interrupted) ? current : undefined;
    });
    const reply = call.transcript!.find((entry) => entry.role === 'assistant')!;
    expect(reply).toMatchObject({ text: heard, interrupted: true, redactions: [{ kind: 'email', start: 7, length: 16 }] });
    expect((await calls.hangUp(id)).status).toBe(200);
    const row = await h.db.raw('select transcript::text as t from calls where id = ?', [id]);
    expectNoSecret(row.rows[0].t, 'the calls row');
    const events = await h.db.raw('select payload::text as p from webhook_events where call_id = ?', [id]);
    for (const event of events.rows) expectNoSecret(event.p, 'a webhook event');
  });

  it('keeps the transcript as said while redaction is off (the default)', async () => {
    expect((await h.request('GET', '/api/v1/settings', { key: tenant.keys.test })).body.recordings.redaction).toEqual({
      kinds: [],
      custom: [],
      webhooks: false,
    });
    const id = await talkedCall();
    const call = await calls.get(id);
    expect(call.transcript!.map((entry) => entry.text)).toEqual([FIRST, SECOND]);
    expect(call.transcript!.every((entry) => !('redactions' in entry))).toBe(true);
  });

  it('refuses a rule that does not parse or would backtrack, naming the field, and leaves the settings and other workspaces alone', async () => {
    expect((await patchSettings({ recordings: { redaction: redaction(true) } })).status).toBe(200);
    const refusals = [
      [{ custom: [{ name: 'broken', pattern: 'ORD-(\\d{6}' }] }, 'recordings.redaction.custom.0.pattern', /valid regular expression/],
      [
        {
          custom: [
            { name: 'ok', pattern: 'x' },
            { name: 'slow', pattern: '(a+)+b' },
          ],
        },
        'recordings.redaction.custom.1.pattern',
        /unbounded/,
      ],
      [{ custom: [{ name: 'email', pattern: 'x' }] }, 'recordings.redaction.custom.0.name', /built-in/],
      [{ kinds: ['credit_card'] }, 'recordings.redaction.kinds.0', /.+/],
      [{ custom: [{ name: 'Bad Name', pattern: 'x' }] }, 'recordings.redaction.custom.0.name', /.+/],
    ] as const;
    for (const [body, field, message] of refusals) {
      const res = await patchSettings({ recordings: { redaction: body } });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details).toEqual(expect.arrayContaining([{ field, message: expect.stringMatching(message) }]));
    }
    expect((await h.request('GET', '/api/v1/settings', { key: tenant.keys.test })).body.recordings.redaction).toEqual(redaction(true));
    // Another workspace, and this one's live environment, redact nothing.
    const other = await createTenant(h.db);
    expect((await h.request('GET', '/api/v1/settings', { key: other.keys.test })).body.recordings.redaction).toEqual({
      kinds: [],
      custom: [],
      webhooks: false,
    });
    expect((await h.request('GET', '/api/v1/settings', { key: tenant.keys.live })).body.recordings.redaction.kinds).toEqual([]);
  });
});
