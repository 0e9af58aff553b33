import { WorkflowNotFoundError } from '@temporalio/client';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { speakingReply } from '../../src/domain/calls/messageTurn';
import { attemptDelivery } from '../../src/domain/webhooks/attempt';
import { parseSecretsKey } from '../../src/platform/crypto/secretBox';
import { egressPolicyFor } from '../../src/platform/net/egress';
import { EVENT_POLICIES, NDJSON_LIMITS, RESPONSE_READ_LIMIT_BYTES } from '../../src/domain/webhooks/events';
import { findEvent, recordEvent } from '../../src/domain/webhooks/record';
import { customer } from '../support/customer';
import { createTenant, eventually, startHarness } from '../support/harness';
import { startReceiver } from '../support/receiver';
import { useSuite } from '../support/suite';

/**
 * What a receiver can make the worker do: read a bounded answer in a bounded time (H3), count only
 * 200 as delivered (D8), never follow a redirect (H2), and not hold `POST /webhooks/test` forever (L11).
 */

/** A receiver that misbehaves on purpose; records how many bytes it wrote and whether the sender hung up. */
interface HostileReceiver {
  url: string;
  behave(handler: (res: http.ServerResponse) => void): void;
  closedBySender(): Promise<void>;
  close(): Promise<void>;
}

async function startHostileReceiver(): Promise<HostileReceiver> {
  let handler: (res: http.ServerResponse) => void = (res) => res.end('{}');
  let hungUp: Promise<void> = Promise.resolve();
  const server = http.createServer((req, res) => {
    let markClosed!: () => void;
    hungUp = new Promise((resolve) => (markClosed = resolve));
    res.once('close', () => markClosed());
    req.resume();
    req.on('end', () => handler(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    behave: (next) => void (handler = next),
    closedBySender: () => hungUp,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes `piece` as fast as the sender reads it, for ever (until the sender hangs up). */
function endless(res: http.ServerResponse, piece: string): void {
  const pump = () => {
    while (!res.destroyed && res.write(piece));
    if (!res.destroyed) res.once('drain', pump);
  };
  pump();
}

describe('bounded webhook answers', () => {
  const { h, tenant, receiver } = useSuite({ worker: true, receiver: true });
  let hostile: HostileReceiver;
  beforeAll(async () => {
    hostile = await startHostileReceiver();
  });
  afterAll(async () => hostile?.close());
  beforeEach(() => receiver.script());

  const { lines } = customer(() => ({ h, tenant }));
  const lineTo = (url: string) => lines.create({ webhook_url: url });
  const sendTest = (lineId: string) => h.request('POST', '/api/v1/webhooks/test', { key: tenant.keys.test, body: { line_id: lineId } });

  it('H3: an endless answer is cut at the read limit; the attempt fails and only the start is logged', async () => {
    const line = await lineTo(hostile.url);
    hostile.behave((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      endless(res, `{"text":"${'a'.repeat(16 * 1024)}`);
    });
    const res = await sendTest(line.id);
    expect(res.status).toBe(200);
    expect(res.body.delivery).toMatchObject({
      status: 'failed',
      http_status: 200,
      error_message: `response body over ${RESPONSE_READ_LIMIT_BYTES} bytes; the request was aborted`,
    });
    // What the log keeps is the start of the answer, as for any answer.
    expect(res.body.delivery.response_body).toBe(`{"text":"${'a'.repeat(991)}`);
    await hostile.closedBySender();
  });

  it('H3: a declared oversized answer is refused without reading it', async () => {
    const line = await lineTo(hostile.url);
    hostile.behave((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) });
      res.write('{');
    });
    const res = await sendTest(line.id);
    expect(res.body.delivery).toMatchObject({
      status: 'failed',
      error_message: `response body over ${RESPONSE_READ_LIMIT_BYTES} bytes (content-length ${10 * 1024 * 1024}); the request was aborted`,
    });
    await hostile.closedBySender();
  });

  it('D8: only 200 is delivered; 204 and 202 are failed attempts', async () => {
    const line = await lineTo(receiver.url);
    receiver.script({ status: 204 }, { status: 202, body: '{"queued":true}' }, { status: 200, body: '{"ok":true}' });
    const noContent = await sendTest(line.id);
    expect(noContent.body.delivery).toMatchObject({ status: 'failed', http_status: 204, error_message: 'http_204' });
    const accepted = await sendTest(line.id);
    expect(accepted.body.delivery).toMatchObject({
      status: 'failed',
      http_status: 202,
      error_message: 'http_202',
      response_body: '{"queued":true}',
    });
    const ok = await sendTest(line.id);
    expect(ok.body.delivery).toMatchObject({ status: 'success', http_status: 200, error_message: null });
  });

  it('a redirect is not followed: the attempt fails with the 3xx and the target gets nothing', async () => {
    const target = await startReceiver();
    try {
      const line = await lineTo(receiver.url);
      receiver.script({ status: 307, headers: { location: target.url } });
      const res = await sendTest(line.id);
      expect(res.body.delivery).toMatchObject({ status: 'failed', http_status: 307, error_message: 'http_307' });
      expect(target.requests).toHaveLength(0);
    } finally {
      await target.close();
    }
  });

  describe('L11: POST /webhooks/test waits a bounded time', () => {
    it('answers 202 pending, with the attempt id, when the receiver is slower than the wait; the attempt finishes in the log', async () => {
      const impatient = await startHarness({ webhookTestWaitMs: 300 });
      try {
        await impatient.startWorker();
        const line = await customer({ h: impatient, tenant }).lines.create({ webhook_url: receiver.url });
        receiver.script({ status: 200, body: '{"late":true}', delayMs: 3_000 });
        const res = await impatient.request('POST', '/api/v1/webhooks/test', { key: tenant.keys.test, body: { line_id: line.id } });
        expect(res.status).toBe(202);
        expect(res.body.delivery).toMatchObject({
          id: expect.any(String),
          event_id: expect.any(String),
          status: 'pending',
          http_status: null,
          response_body: null,
        });
        const finished = await eventually(async () => {
          const row = await impatient.db('webhook_deliveries').where({ id: res.body.delivery.id }).first();
          return row?.status === 'success' ? row : undefined;
        });
        expect(finished.response_body).toBe('{"late":true}');
      } finally {
        await impatient.close();
      }
    });

    it('needs no worker: the API makes the attempt itself, and starts no workflow for it (issue 14)', async () => {
      const idle = await startHarness({ webhookTestWaitMs: 5_000 });
      try {
        const line = await lineTo(receiver.url);
        const res = await idle.request('POST', '/api/v1/webhooks/test', { key: tenant.keys.test, body: { line_id: line.id } });
        expect(res.status).toBe(200);
        expect(res.body.delivery).toMatchObject({
          id: expect.any(String),
          event_id: expect.any(String),
          status: 'success',
          http_status: 200,
        });
        await expect(idle.temporal.workflow.getHandle(`webhook-event:${res.body.delivery.event_id}`).describe()).rejects.toThrow(
          WorkflowNotFoundError,
        );
      } finally {
        await idle.close();
      }
    });
  });

  describe('H3: streamed (NDJSON) replies are bounded', () => {
    /** One `message` delivery attempt with a live reply stream, as the call turn makes it; the carrier only records what it was asked to speak. */
    async function streamedAttempt(budget = { lineMs: 2_000, totalMs: 30_000 }) {
      const line = await lineTo(hostile.url);
      const eventId = await recordEvent(h.db, {
        workspaceId: tenant.workspaceId,
        environment: 'test',
        lineId: line.id,
        type: 'message',
        target: EVENT_POLICIES.message.target,
        payload: { text: 'hello' },
        now: new Date(),
      });
      const event = (await findEvent(h.db, eventId))!;
      const spoken: string[] = [];
      const carrier = { speak: async ({ text }: { text: string }) => void spoken.push(text) };
      const deps = {
        db: h.db,
        egress: egressPolicyFor(h.config),
        secretsKey: () => parseSecretsKey(h.config.secretsKey!),
        now: () => new Date(),
      };
      const reply = speakingReply(carrier, { carrierCallId: 'CA-limits', speakIdPrefix: 'turn-1' }, budget);
      const outcome = await attemptDelivery(deps, event, 1, { reply });
      const row = await h.db('webhook_deliveries').where({ event_id: eventId }).first();
      return { outcome, spoken, row };
    }
    const ndjson = (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'application/x-ndjson' });

    it('one endless line is cut at the line limit', async () => {
      hostile.behave((res) => {
        ndjson(res);
        res.write('{"text":"');
        endless(res, 'a'.repeat(1024));
      });
      const { outcome, spoken, row } = await streamedAttempt();
      expect(outcome).toMatchObject({ delivered: false, httpStatus: 200 });
      expect(spoken).toEqual([]);
      expect(row).toMatchObject({ status: 'failed', error_message: `ndjson line over ${NDJSON_LIMITS.maxLineChars} characters` });
      expect(row.response_body).toBe(`{"text":"${'a'.repeat(991)}`);
      await hostile.closedBySender();
    });

    it('a line drip-fed byte by byte gets the per-line budget, not a fresh one per byte', async () => {
      hostile.behave((res) => {
        ndjson(res);
        res.write('{"text":"Hello."}\n{"text":"');
        const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write('a')), 50);
      });
      const { outcome, spoken, row } = await streamedAttempt({ lineMs: 500, totalMs: 20_000 });
      expect(outcome.spokenChunks?.map((c) => c.text)).toEqual(['Hello.']);
      expect(spoken).toEqual(['Hello.']);
      expect(row).toMatchObject({ status: 'failed', error_message: 'no ndjson line within 500 ms' });
      await hostile.closedBySender();
    });

    it('lines without end are cut at the chunk limit: exactly that many are spoken', async () => {
      hostile.behave((res) => {
        ndjson(res);
        endless(res, '{"text":"Hi."}\n');
      });
      const { outcome, spoken, row } = await streamedAttempt();
      expect(spoken).toHaveLength(NDJSON_LIMITS.maxChunks);
      expect(outcome.spokenChunks).toHaveLength(NDJSON_LIMITS.maxChunks);
      expect(row).toMatchObject({ status: 'failed', error_message: `ndjson reply over ${NDJSON_LIMITS.maxChunks} chunks` });
      await hostile.closedBySender();
    });

    it('long chunks are cut at the spoken-characters limit', async () => {
      const chunk = 'b'.repeat(1000);
      hostile.behave((res) => {
        ndjson(res);
        endless(res, `${JSON.stringify({ text: chunk })}\n`);
      });
      const { spoken, row } = await streamedAttempt();
      expect(spoken).toHaveLength(NDJSON_LIMITS.maxSpokenChars / chunk.length);
      expect(row).toMatchObject({
        status: 'failed',
        error_message: `ndjson reply over ${NDJSON_LIMITS.maxSpokenChars} characters of text`,
      });
      await hostile.closedBySender();
    });

    it('a well-behaved stream is still spoken whole and delivered', async () => {
      hostile.behave((res) => {
        ndjson(res);
        res.end('{"text":"One."}\n{"text":"Two."}\n{"done":true}\n');
      });
      const { outcome, spoken, row } = await streamedAttempt();
      expect(spoken).toEqual(['One.', 'Two.']);
      expect(outcome.delivered).toBe(true);
      expect(row.status).toBe('success');
    });
  });

  it('a second tenant is unaffected (sanity: the limits are per attempt)', async () => {
    const other = await createTenant(h.db);
    const line = await lines.create({ webhook_url: receiver.url }, other.keys.test);
    expect(
      (await h.request('POST', '/api/v1/webhooks/test', { key: other.keys.test, body: { line_id: line.id } })).body.delivery.status,
    ).toBe('success');
  });
});
