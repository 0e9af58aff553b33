import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { speakingReply } from '../../src/domain/calls/messageTurn';
import { completionOf, outcomeOf, requestBodyOf, signedRequest } from '../../src/domain/webhooks/attempt';
import { EVENT_POLICIES } from '../../src/domain/webhooks/events';
import { AnswerStart, type PostResult } from '../../src/domain/webhooks/post';
import { eventRowOf, recordEventStatement, type NewEvent } from '../../src/domain/webhooks/record';
import { verifySignature } from '../../src/domain/webhooks/signature';

/** The pure pieces of a delivery attempt's phases (src/domain/webhooks/attempt.ts) and of the call turn's reply reader. */

const event: NewEvent & { id: string } = {
  id: '6b0f7f5e-3f43-4d7c-9a36-0c3f3f6f0001',
  workspaceId: 'ws_1',
  environment: 'test',
  lineId: 'line_1',
  callId: 'call_1',
  type: 'message',
  target: 'webhook',
  payload: { call_id: 'call_1', text: 'Hello' },
  actorKeyId: null,
  now: new Date('2026-11-28T12:00:00Z'),
};

describe('delivery attempt phases', () => {
  it('eventRowOf is the row recordEvent writes, and the body names the event, its id and its line', () => {
    const row = eventRowOf(event);
    expect(row).toEqual({
      id: event.id,
      workspace_id: 'ws_1',
      environment: 'test',
      line_id: 'line_1',
      call_id: 'call_1',
      event_type: 'message',
      payload: event.payload,
    });
    expect(JSON.parse(requestBodyOf(row))).toEqual({
      call_id: 'call_1',
      text: 'Hello',
      event: 'message',
      event_id: event.id,
      line_id: 'line_1',
    });
  });

  it('recordEventStatement binds one value per column, the payload as JSON', () => {
    const { sql, bindings } = recordEventStatement(event);
    expect(sql.match(/\?/g)).toHaveLength(bindings.length);
    expect(sql).toMatch(/ON CONFLICT \(id\) DO NOTHING/);
    const columns = /\(([^)]*)\)\s*VALUES/
      .exec(sql)![1]
      .split(',')
      .map((c) => c.trim());
    const byColumn = Object.fromEntries(columns.map((c, i) => [c, bindings[i]]));
    const { payload, ...row } = eventRowOf(event);
    expect(byColumn).toEqual({ ...row, target: 'webhook', payload: JSON.stringify(payload), actor_key_id: null, created_at: event.now });
  });

  it('signedRequest signs the body for the delivery id and attempt, with the event type’s budget', () => {
    const started = new Date('2026-11-28T12:00:00Z');
    const secret = 'a'.repeat(64);
    const body = requestBodyOf(eventRowOf(event));
    const request = signedRequest(
      { event_type: 'call_ended' },
      { url: 'https://x.test/h', secret, body, deliveryId: 'd1', number: 3, started },
    );
    expect(request).toMatchObject({ url: 'https://x.test/h', body, timeoutMs: EVENT_POLICIES.call_ended.timeoutMs, expectsReply: false });
    expect(request.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'Switchboard-Webhooks/1' });
    expect(verifySignature({ secret, headers: request.headers, rawBody: body, now: started })).toEqual({ valid: true });
    expect(Object.values(request.headers)).toContain('3');
    expect(signedRequest({ event_type: 'message' }, { url: 'u', secret, body, deliveryId: 'd', number: 1, started })).toMatchObject({
      timeoutMs: EVENT_POLICIES.message.timeoutMs,
      expectsReply: true,
    });
  });

  it('recordOutcome’s columns and outcome: delivered only without an error; spoken parts only when there are some', () => {
    const started = new Date(1_000);
    const failed: PostResult = { httpStatus: 500, error: 'http_500', responseText: 'no', replySpoken: false, spokenChunks: [] };
    const headers = { 'x-service-signature': 'v1=ab', 'x-service-delivery-attempt': '1' };
    expect(completionOf({ headers }, failed, started, new Date(1_250))).toEqual({
      request_headers: JSON.stringify(headers),
      status: 'failed',
      http_status: 500,
      error_message: 'http_500',
      response_body: 'no',
      duration_ms: 250,
      completed_at: new Date(1_250),
    });
    expect(outcomeOf('d1', failed)).toEqual({ deliveryId: 'd1', delivered: false, retryable: true, httpStatus: 500 });
    const spoken: PostResult = {
      httpStatus: 200,
      error: null,
      responseText: '',
      retryAfterMs: 5,
      replySpoken: false,
      spokenChunks: [{ speakId: 's-1', text: 'Hi.' }],
    };
    expect(outcomeOf('d2', spoken)).toEqual({
      deliveryId: 'd2',
      delivered: true,
      retryable: true,
      httpStatus: 200,
      retryAfterMs: 5,
      spokenChunks: [{ speakId: 's-1', text: 'Hi.' }],
    });
  });
});

describe('the call turn’s reply reader (speakingReply)', () => {
  const answer = (...parts: string[]) => Readable.from(parts.map((p) => Buffer.from(p))) as unknown as IncomingMessage;

  it('speaks each NDJSON `{text}` line as it completes, skips malformed ones and stops at `{done: true}`', async () => {
    const said: Array<{ speakId: string; text: string }> = [];
    const reply = speakingReply(
      { speak: async ({ speakId, text }) => void said.push({ speakId, text }) },
      { carrierCallId: 'CA1', speakIdPrefix: 'c1:turn-1' },
      { lineMs: 1_000, totalMs: 5_000 },
    );
    expect(reply.streams('application/x-ndjson; charset=utf-8')).toBe(true);
    expect(reply.streams('application/json')).toBe(false);
    expect(reply.takeReply).toBeUndefined();
    const start = new AnswerStart();
    await reply.readStream(
      answer('{"text":"Hel', 'lo."}\nnot json\n\n{"text":"Bye."}\n{"done":true}\n{"text":"never"}\n'),
      new AbortController(),
      start,
    );
    expect(said).toEqual([
      { speakId: 'c1:turn-1-1', text: 'Hello.' },
      { speakId: 'c1:turn-1-2', text: 'Bye.' },
    ]);
    expect(reply.chunks).toEqual(said);
    expect(start.text.startsWith('{"text":"Hello."}')).toBe(true);
  });

  it('with a reply speak id, a `{text}` reply is spoken under it; a carrier refusal is `false`, not a failure', async () => {
    const said: string[] = [];
    const speaking = speakingReply(
      { speak: async ({ speakId }) => void said.push(speakId) },
      { carrierCallId: 'CA1', speakIdPrefix: 'p', replySpeakId: 'c1:speak-1' },
      { lineMs: 1_000, totalMs: 5_000 },
    );
    await expect(speaking.takeReply!('Hello')).resolves.toBe(true);
    expect(said).toEqual(['c1:speak-1']);
    const refusing = speakingReply(
      {
        speak: async () => {
          throw new Error('409 call is not answered');
        },
      },
      { carrierCallId: 'CA1', speakIdPrefix: 'p', replySpeakId: 'c1:speak-1' },
      { lineMs: 1_000, totalMs: 5_000 },
    );
    await expect(refusing.takeReply!('Hello')).resolves.toBe(false);
  });
});
