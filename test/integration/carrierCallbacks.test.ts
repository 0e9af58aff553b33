import crypto from 'node:crypto';
import { computeCarrierSignature } from '../../src/adapters/carrier/callbacks/signature';
import { createMaintenanceActivities } from '../../activities/maintenance';
import { customer } from '../support/customer';
import { eventually } from '../support/harness';
import { startLoggingApi } from '../support/loggingApi';
import { decryptedHistory } from '../../dev/temporalHistory';
import { useSuite } from '../support/suite';

/** A simulator `sms.received` callback body, as the carrier posts it: `text` from `from` to `to`, under a new message id. */
const inboundSms = (to: string, from: string, text: string): string =>
  JSON.stringify({
    type: 'sms.received',
    carrier_message_id: `SM${crypto.randomBytes(8).toString('hex')}`,
    from,
    to,
    text,
    at: Date.now(),
  });

/**
 * The carrier's callbacks (`/carrier/events`, `/carrier/messages`) as an attacker sees them: the
 * phone numbers are public, so anything short of the carrier's signature must be refused with
 * 401 and change nothing (security review C1, L5, L11).
 */
describe('carrier callbacks', () => {
  const ctx = useSuite({ worker: true });
  const { h, tenant } = ctx;

  const nowSeconds = () => Math.floor(Date.now() / 1000);
  /** Sends `rawBody` with the given headers (JSON content type, as a carrier would). */
  const send = (path: string, rawBody: string, headers: Record<string, string> = {}) => h.request('POST', path, { rawBody, headers });
  /** Signs like the carrier: `v1=` HMAC of `<timestamp>.<raw body>` with CARRIER_WEBHOOK_SECRET. */
  const signedHeaders = (rawBody: string, options: { secret?: string; timestamp?: number } = {}) => {
    const timestamp = options.timestamp ?? nowSeconds();
    return {
      'x-carrier-timestamp': String(timestamp),
      'x-carrier-signature': computeCarrierSignature(options.secret ?? h.config.carrierWebhookSecret!, timestamp, rawBody),
    };
  };
  const sendSigned = (path: string, body: unknown) => {
    const rawBody = JSON.stringify(body);
    return send(path, rawBody, signedHeaders(rawBody));
  };

  /** Every way a request can fail to be the carrier's, for one body. */
  const forgeries = (rawBody: string): Array<[string, Record<string, string>, string?]> => [
    ['no signature', {}],
    ['the old shared bearer, even with the real secret', { authorization: `Bearer ${h.config.carrierWebhookSecret}` }],
    ['the old default bearer', { authorization: 'Bearer dev-carrier-secret' }],
    ['a signature made with another secret', signedHeaders(rawBody, { secret: crypto.randomBytes(32).toString('hex') })],
    ['a timestamp older than 5 minutes', signedHeaders(rawBody, { timestamp: nowSeconds() - 400 })],
    ['a timestamp more than 5 minutes ahead', signedHeaders(rawBody, { timestamp: nowSeconds() + 400 })],
    ['a signature without its timestamp', { 'x-carrier-signature': signedHeaders(rawBody)['x-carrier-signature'] }],
    ['a body altered after signing', signedHeaders(rawBody), rawBody.replace(/"at":(\d+)/, (_, at: string) => `"at":${Number(at) + 1}`)],
  ];

  const { lines, calls } = customer(ctx);

  it('a forged inbound call is 401 and creates no call, whatever is missing from the signature', async () => {
    const line = await lines.create();
    const rawBody = JSON.stringify({
      type: 'call.incoming',
      carrier_call_id: `CA${crypto.randomBytes(8).toString('hex')}`,
      from: '+14155550142',
      to: line.phone_number,
      at: Date.now(),
    });
    for (const [what, headers, altered] of forgeries(rawBody)) {
      const res = await send('/carrier/events', altered ?? rawBody, headers);
      expect({ what, status: res.status, code: res.body?.error?.code }).toEqual({ what, status: 401, code: 'unauthorized' });
    }
    expect(await h.db('calls').where({ line_id: line.id })).toEqual([]);
  });

  it('forged SMS keywords are 401 and leave the opt-out list as it was; a replay of a genuine one too', async () => {
    const line = await lines.create();
    const caller = '+14155550177';
    const optedOut = async () =>
      (await h.db('opt_outs').where({ workspace_id: tenant.workspaceId, environment: 'test', phone_number: caller })).length === 1;
    const sms = (text: string) => inboundSms(line.phone_number, caller, text);

    const stop = sms('STOP');
    for (const [what, headers, altered] of forgeries(stop)) {
      expect({ what, status: (await send('/carrier/messages', altered ?? stop, headers)).status }).toEqual({ what, status: 401 });
    }
    expect(await optedOut()).toBe(false);
    expect(await h.db('messages').where({ line_id: line.id, direction: 'inbound' })).toEqual([]);

    // The genuine STOP is accepted once; the same request again (a replay) is refused after a START.
    const stopHeaders = signedHeaders(stop);
    expect((await send('/carrier/messages', stop, stopHeaders)).status).toBe(200);
    expect(await optedOut()).toBe(true);
    expect((await sendSigned('/carrier/messages', JSON.parse(sms('START')))).status).toBe(200);
    expect(await optedOut()).toBe(false);
    const replay = await send('/carrier/messages', stop, stopHeaders);
    expect(replay.status).toBe(401);
    expect(await optedOut()).toBe(false);
  });

  it('a replay is refused by every API instance (the seen signatures are in Postgres)', async () => {
    const line = await lines.create();
    const rawBody = inboundSms(line.phone_number, '+14155550178', 'hello');
    const headers = signedHeaders(rawBody);
    expect((await send('/carrier/messages', rawBody, headers)).status).toBe(200);
    const other = await startLoggingApi(h);
    try {
      const res = await fetch(`${other.url}/carrier/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: rawBody,
      });
      expect(res.status).toBe(401);
    } finally {
      await other.close();
    }
    expect(await h.db('messages').where({ line_id: line.id, direction: 'inbound' })).toHaveLength(1);
  });

  it('a deployment on Twilio and Telnyx alone serves no simulator callback route: a correctly signed event is 404 and changes nothing (L20)', async () => {
    const line = await lines.create();
    const rawBody = inboundSms(line.phone_number, '+14155550179', 'STOP');
    // A Telnyx deployment holds its account key (the API declines calls with it); nothing here reaches Telnyx.
    const telnyx = { ...h.config.telnyx, apiKey: `KEY${crypto.randomBytes(8).toString('hex')}` };
    const other = await startLoggingApi(h, { config: { carrier: { test: 'twilio', live: 'telnyx' }, telnyx } });
    try {
      for (const path of ['/carrier/messages', '/carrier/events']) {
        const res = await fetch(`${other.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...signedHeaders(rawBody) },
          body: rawBody,
        });
        expect([path, res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([path, 404, 'not_found']);
      }
    } finally {
      await other.close();
    }
    expect(await h.db('messages').where({ line_id: line.id, direction: 'inbound' })).toHaveLength(0);
    // The deployment's own API, with the simulator serving an environment, still takes it.
    expect((await send('/carrier/messages', rawBody, signedHeaders(rawBody))).status).toBe(200);
  });

  it('forged call events never reach the call workflow', async () => {
    const line = await lines.create();
    const id = (await calls.place(line.id)).body.call.id;
    await calls.untilStatus(id, ['in_progress']);
    const marker = `FORGED-${crypto.randomUUID()}`;
    const utterance = JSON.stringify({
      type: 'call.utterance',
      call_id: id,
      carrier_call_id: 'CA0',
      text: marker,
      language: 'en',
      at: Date.now(),
    });
    const hangup = JSON.stringify({
      type: 'call.completed',
      call_id: id,
      carrier_call_id: 'CA0',
      ended_by: 'caller',
      answered: true,
      at: Date.now(),
    });
    for (const rawBody of [utterance, hangup]) {
      for (const [what, headers, altered] of forgeries(rawBody)) {
        expect({ what, status: (await send('/carrier/events', altered ?? rawBody, headers)).status }).toEqual({ what, status: 401 });
      }
    }
    const history = await decryptedHistory(h.temporal, id);
    const signalled = (history.events ?? [])
      .flatMap((e) => e.workflowExecutionSignaledEventAttributes?.input?.payloads ?? [])
      .map((p) => Buffer.from(p.data ?? []).toString('utf8'));
    expect(signalled.some((payload) => payload.includes(marker))).toBe(false);
    expect((await calls.get(id)).status).toBe('in_progress');
    await calls.hangUp(id);
  });

  it('authenticates before validating: an unsigned caller learns nothing about the body', async () => {
    for (const path of ['/carrier/events', '/carrier/messages']) {
      const res = await send(path, JSON.stringify({ type: 'nonsense', at: -1 }));
      expect(res.status).toBe(401);
      expect(res.body.error).toEqual({ code: 'unauthorized', message: 'Invalid carrier signature' });
    }
    // Signed, the same body is a validation error.
    expect((await sendSigned('/carrier/events', { type: 'nonsense', at: -1 })).status).toBe(422);
  });

  it('answers an inbound call without telling the carrier the internal call id', async () => {
    const line = await lines.create();
    const res = await sendSigned('/carrier/events', {
      type: 'call.incoming',
      carrier_call_id: `CA${crypto.randomBytes(8).toString('hex')}`,
      from: '+14155550142',
      to: line.phone_number,
      at: Date.now(),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    await eventually(async () => (await h.db('calls').where({ line_id: line.id }).first()) ?? undefined);
  });

  it('refuses carrier times far from the server clock (422), signed or not', async () => {
    const line = await lines.create();
    const incoming = (at: number) => ({
      type: 'call.incoming',
      carrier_call_id: `CA${crypto.randomBytes(8).toString('hex')}`,
      from: '+14155550142',
      to: line.phone_number,
      at,
    });
    for (const at of [Date.now() + 6 * 60_000, Date.now() - 61 * 60_000, 2 ** 53 - 1]) {
      const res = await sendSigned('/carrier/events', incoming(at));
      expect(res.status).toBe(422);
      expect(res.body.error.details).toEqual([{ field: 'at', message: expect.any(String) }]);
    }
    const sms = {
      type: 'sms.received',
      carrier_message_id: 'SMfar',
      from: '+14155550142',
      to: line.phone_number,
      text: 'hi',
      at: Date.now() + 3_600_000,
    };
    expect((await sendSigned('/carrier/messages', sms)).status).toBe(422);
    expect(await h.db('calls').where({ line_id: line.id })).toEqual([]);
    expect(await h.db('messages').where({ line_id: line.id })).toEqual([]);
  });

  it('never stores a caller id that is not a phone number: calls record anonymous, SMS is refused', async () => {
    const line = await lines.create();
    const res = await sendSigned('/carrier/events', {
      type: 'call.incoming',
      carrier_call_id: `CA${crypto.randomBytes(8).toString('hex')}`,
      from: '<script>alert(1)</script>',
      to: line.phone_number,
      at: Date.now(),
    });
    expect(res.status).toBe(200);
    const call = await eventually(async () => (await h.db('calls').where({ line_id: line.id }).first()) ?? undefined);
    expect(call).toMatchObject({ from_number: 'anonymous', zone: 'C' });

    const sms = await sendSigned('/carrier/messages', {
      type: 'sms.received',
      carrier_message_id: 'SMalpha',
      from: 'ACME-BANK',
      to: line.phone_number,
      text: 'hi',
      at: Date.now(),
    });
    expect(sms.status).toBe(422);
    expect(sms.body.error.details).toEqual([{ field: 'from', message: 'Must be a phone number' }]);
    expect(await h.db('messages').where({ line_id: line.id })).toEqual([]);
  });

  it('keeps the carrier routes out of the public OpenAPI document', async () => {
    const res = await h.request('GET', '/api/openapi.yaml');
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('/carrier/');
  });

  it('the hourly maintenance forgets signatures once they are outside the window', async () => {
    const old = `v1=${crypto.randomBytes(32).toString('hex')}`;
    const recent = `v1=${crypto.randomBytes(32).toString('hex')}`;
    const now = Date.now();
    await h.db('carrier_callback_signatures').insert([
      { signature: old, signed_at: new Date(now - 10 * 60_000), received_at: new Date(now - 10 * 60_000) },
      { signature: recent, signed_at: new Date(now - 60_000), received_at: new Date(now - 60_000) },
    ]);
    const purged = await createMaintenanceActivities({ db: h.db, now: () => new Date() }).purgeExpiredRecords();
    expect(purged.carrierCallbackSignatures).toBeGreaterThanOrEqual(1);
    expect(await h.db('carrier_callback_signatures').whereIn('signature', [old, recent]).pluck('signature')).toEqual([recent]);
  });
});
