import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import operations from '../fixtures/twilio-oai/operations.json';
import api2010 from '../fixtures/twilio-oai/twilio_api_v2010.slice.json';
import messagingV1 from '../fixtures/twilio-oai/twilio_messaging_v1.slice.json';
import { twilioContract, type TwilioContract } from '../support/twilioContract';
import { DERIVED_OPERATIONS, twilioOperations } from '../support/twilioContractSchemas';
import { startTwilioStub, twilioSignature, type TwilioStub } from '../support/twilioStub';

/** The contract the Twilio stub is held to (test/support/twilioContract.ts) catches what Twilio's description refuses. */
describe('Twilio contract (vendored twilio-oai operations)', () => {
  it('the slices hold exactly the operations listed, with the commit they were cut from', () => {
    for (const slice of [api2010, messagingV1]) {
      const vendored = slice.info['x-vendored'];
      expect(vendored).toMatchObject({ repository: 'twilio/twilio-oai', commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
      expect(vendored.operations).toEqual((operations as Record<string, string[]>)[vendored.path]);
    }
    const compiled = twilioOperations().operations.map((op) => op.operationId);
    // And those derived from a vendored one's path item (DeleteRecording, twilioContractSchemas.ts says how).
    expect(compiled.sort()).toEqual([...Object.values(operations).flat(), ...DERIVED_OPERATIONS].sort());
  });

  describe('requests, through the stub', () => {
    let stub: TwilioStub;
    let auth: string;
    beforeAll(async () => {
      stub = await startTwilioStub();
      auth = `Basic ${Buffer.from(`${stub.accountSid}:${stub.authToken}`).toString('base64')}`;
    });
    afterAll(() => stub.close());

    const base = () => `${stub.url}/2010-04-01/Accounts/${stub.accountSid}`;
    const send = (path: string, form?: Record<string, string | string[]>, headers: Record<string, string> = {}) => {
      const body = new URLSearchParams();
      for (const [name, value] of Object.entries(form ?? {})) for (const v of [value].flat()) body.append(name, v);
      return fetch(`${base()}${path}`, {
        method: form ? 'POST' : 'GET',
        headers: { authorization: auth, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers },
        body: form ? body.toString() : undefined,
      });
    };
    const call = { To: '+15555550111', From: '+15555550100', Url: 'https://example.com/connect' };
    /** The stub refuses with Twilio's 400 envelope, and the violation is recorded (taken here, so this test owns it). */
    const refused = async (res: Response, problem: RegExp) => {
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 70002, status: 400, message: expect.stringMatching(problem) });
      const taken = stub.contract.take();
      expect(taken.flatMap((v) => v.problems)).toEqual(expect.arrayContaining([expect.stringMatching(problem)]));
    };

    it('accepts what Twilio documents: arrays as repeated keys, booleans as "true"', async () => {
      const res = await send('/Calls.json', { ...call, StatusCallbackEvent: ['ringing', 'completed'], Record: 'true', Timeout: '30' });
      expect(res.status).toBe(201);
      expect(stub.contract.take()).toEqual([]);
    });

    it('refuses an invented parameter, by its name', async () => {
      await refused(await send('/Calls.json', { ...call, Langauge: 'fr-FR' }), /body\.Langauge is not in Twilio's description/);
    });

    it('refuses a value outside an enum', async () => {
      await refused(
        await send('/Calls.json', { ...call, Method: 'PUT' }),
        /body\.Method must be equal to one of the allowed values \(GET, POST\)/,
      );
    });

    it('refuses wrong types: a boolean not "true"/"false", an integer with a unit, a single value sent twice', async () => {
      await refused(await send('/Calls.json', { ...call, Record: 'yes' }), /body\.Record must be boolean/);
      await refused(await send('/Calls.json', { ...call, Timeout: '30s' }), /body\.Timeout must be integer/);
      await refused(await send('/Calls.json', { ...call, Url: [call.Url, call.Url] }), /body\.Url must be string/);
    });

    it('refuses a missing required parameter, a bad path parameter, an unknown query parameter', async () => {
      await refused(await send('/Calls.json', { From: call.From, Url: call.Url }), /must have required property 'To'/);
      await refused(await send('/Calls/CA123.json', { Status: 'completed' }), /path\.Sid must/);
      await refused(await send('/Calls.json?Sort=asc'), /query\.Sort is not in Twilio's description/);
    });

    it('refuses an operation that is not vendored, a method Twilio does not have, a JSON body and auth without the account SID', async () => {
      await refused(await send('/Conferences.json'), /no vendored Twilio operation has the path/);
      await refused(await fetch(`${base()}/Calls.json`, { method: 'PUT', headers: { authorization: auth } }), /has no PUT on/);
      await refused(
        await fetch(`${base()}/Calls.json`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json' },
          body: '{}',
        }),
        /not application\/x-www-form-urlencoded/,
      );
      const apiKey = `Basic ${Buffer.from(`SK${'0'.repeat(32)}:secret`).toString('base64')}`;
      await refused(await send('/Calls.json', undefined, { authorization: apiKey }), /Basic auth user SK0+ is not an account SID/);
    });

    it('a violation nobody took fails the test: assertNone throws it, once', async () => {
      await send('/Calls.json', { ...call, Invented: '1' });
      expect(() => stub.contract.assertNone()).toThrow(/Twilio contract violated[\s\S]*body\.Invented is not in Twilio's description/);
      expect(() => stub.contract.assertNone()).not.toThrow();
    });
  });

  describe('answers, from a server that misreads Twilio', () => {
    let contract: TwilioContract;
    let server: http.Server;
    let answer: { status: number; body: unknown; type?: string };
    beforeAll(async () => {
      contract = twilioContract({ accountSid: `AC${'a'.repeat(32)}`, authToken: 'token' });
      server = http.createServer((req, res) => {
        let raw = '';
        req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
        req.on('end', () => {
          contract.request(req, res, raw);
          res.writeHead(answer.status, { 'content-type': answer.type ?? 'application/json' });
          res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      contract.close();
    });

    const fetchCall = async () => {
      const sid = `AC${'a'.repeat(32)}`;
      await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/2010-04-01/Accounts/${sid}/Calls/CA${'b'.repeat(32)}.json`, {
        headers: { authorization: `Basic ${Buffer.from(`${sid}:token`).toString('base64')}` },
      });
      return contract.take().flatMap((v) => v.problems);
    };
    const callJson = {
      sid: `CA${'b'.repeat(32)}`,
      status: 'in-progress',
      date_created: 'Tue, 31 Aug 2010 20:36:28 +0000',
      to: '+15555550111',
    };

    it('passes an answer as Twilio describes it', async () => {
      answer = { status: 200, body: callJson };
      expect(await fetchCall()).toEqual([]);
    });

    it('catches an invented field (twilio-oai lists every field of a Call)', async () => {
      answer = { status: 200, body: { ...callJson, call_control_id: 'v3:abc' } };
      expect(await fetchCall()).toEqual(["response.call_control_id is not in Twilio's description"]);
    });

    it('catches a wrong enum value, a wrong type and a wrong date format', async () => {
      answer = { status: 200, body: { ...callJson, status: 'answered', duration: 15, date_created: 'Tue, 31 Aug 2010 20:36:28 GMT' } };
      const problems = await fetchCall();
      expect(problems).toHaveLength(3);
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^response\.status must be equal to one of the allowed values \(queued, ringing, in-progress/),
          'response.duration must be string',
          'response.date_created must match format "date-time-rfc-2822"',
        ]),
      );
    });

    it("catches a status code Twilio does not answer, and an error that is not Twilio's envelope", async () => {
      answer = { status: 201, body: callJson };
      expect(await fetchCall()).toEqual(["Twilio's description gives FetchCall no 201 answer"]);
      answer = { status: 404, body: { error: 'not found' } };
      expect(await fetchCall()).toEqual(expect.arrayContaining(["error.error is not in Twilio's description"]));
      answer = {
        status: 404,
        body: {
          code: 20404,
          message: 'The requested resource was not found',
          more_info: 'https://www.twilio.com/docs/errors/20404',
          status: 400,
        },
      };
      expect(await fetchCall()).toEqual(["the error envelope's status is not the HTTP status 404"]);
    });
  });

  describe('signature oracle (twilio.validateRequest)', () => {
    const authToken = 'f'.repeat(32);
    let contract: TwilioContract;
    beforeEach(() => {
      contract = twilioContract({ accountSid: `AC${'a'.repeat(32)}`, authToken });
    });
    afterEach(() => contract.close());
    const url = 'https://switchboard.example/carrier/twilio/calls/connect?call_id=c-1&resume=1';
    const params = { CallSid: `CA${'b'.repeat(32)}`, Digits: '1 2&3', Caller: '+15555550100' };

    it("agrees with the stub's signing of a URL with a query and parameters that need encoding", () => {
      contract.callback({ url, params, signature: twilioSignature(authToken, url, params), ownSignature: true, status: 200 });
      contract.upgrade(
        'wss://switchboard.example/carrier/twilio/relay?call_id=c-1',
        twilioSignature(authToken, 'wss://switchboard.example/carrier/twilio/relay?call_id=c-1', {}),
      );
      expect(contract.take()).toEqual([]);
    });

    it('catches a stub signature Twilio would not produce, and Switchboard accepting a callback the validator refuses', () => {
      // A misreading: parameters in the order given instead of sorted by name.
      contract.callback({ url, params, signature: misreadSignature(authToken, url, params), ownSignature: true, status: 403 });
      contract.callback({ url, params, signature: twilioSignature('e'.repeat(32), url, params), ownSignature: false, status: 200 });
      contract.upgrade(`${url}&x=1`, twilioSignature(authToken, url, {}));
      expect(contract.take().flatMap((v) => v.problems)).toEqual([
        "the stub's X-Twilio-Signature is not the one twilio.validateRequest expects",
        'Switchboard answered 200 to a callback twilio.validateRequest refuses',
        "the stub's X-Twilio-Signature is not the one twilio.validateRequest expects",
      ]);
    });
  });
});

function misreadSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.entries(params).reduce((acc, [key, value]) => acc + key + value, url);
  return crypto.createHmac('sha1', authToken).update(data).digest('base64');
}
