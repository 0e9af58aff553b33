import type { CallToolResult, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { followCall } from '../../api/mcp/follow';
import type { ApiAnswer, ApiRequest } from '../../api/mcp/dispatch';

/** follow_call's loop against a scripted API: events from the changes between looks, notified with a progress token. */
describe('follow_call', () => {
  const record = (status: string, transcript: Array<{ role: string; text: string; timestamp: string }> = [], extra = {}) => ({
    call: { id: 'c1', status, end_cause: null, answered_by: null, transferred_to: null, recording_url: null, transcript, ...extra },
  });
  const said = { role: 'user', text: 'Hello?', timestamp: '2026-11-28T20:00:00.000Z' };
  const refusal = (answer: ApiAnswer): CallToolResult => ({
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(answer.body) }],
  });
  /** Answers each look with the next scripted answer (the last one again once they run out). */
  const scripted = (answers: ApiAnswer[]) => {
    const requests: ApiRequest[] = [];
    const dispatch = async (request: ApiRequest) => {
      requests.push(request);
      return answers[Math.min(requests.length - 1, answers.length - 1)];
    };
    return { dispatch, requests };
  };
  const ok = (body: unknown): ApiAnswer => ({ status: 200, headers: {}, body });
  const context = (progressToken?: string) => {
    const sent: ServerNotification[] = [];
    return {
      sent,
      signal: new AbortController().signal,
      progressToken,
      sendNotification: async (n: ServerNotification) => void sent.push(n),
    };
  };

  it('reports the state so far, then each change until the call ends, as events and progress notifications', async () => {
    const { dispatch, requests } = scripted([
      ok(record('ringing')),
      ok(record('in_progress')),
      ok(record('in_progress', [said])),
      ok(record('completed', [said], { end_cause: 'caller_hangup', recording_url: 'https://rec.example/1.wav' })),
    ]);
    const ctx = context('tok');
    const result = await followCall({ id: 'c1', timeout_seconds: 30 }, dispatch, ctx, refusal);
    const events = [
      { type: 'status', status: 'ringing', end_cause: null, answered_by: null, transferred_to: null },
      { type: 'status', status: 'in_progress', end_cause: null, answered_by: null, transferred_to: null },
      { type: 'transcript', index: 0, ...said },
      { type: 'status', status: 'completed', end_cause: 'caller_hangup', answered_by: null, transferred_to: null },
      { type: 'recording', recording_url: 'https://rec.example/1.wav' },
    ];
    expect(result.structuredContent).toMatchObject({ events, ended: true, timed_out: false, call: { status: 'completed' } });
    expect(ctx.sent.map((n) => n.params)).toEqual(
      events.map((e, i) => ({ progressToken: 'tok', progress: i + 1, message: JSON.stringify(e) })),
    );
    expect(requests.map((r) => r.path)).toEqual(Array(4).fill('/api/v1/calls/c1'));
  });

  it('without a progress token sends nothing and answers at the end; stops at timeout_seconds while the call goes on', async () => {
    const { dispatch } = scripted([ok(record('in_progress'))]);
    const ctx = context();
    const result = await followCall({ id: 'c1', timeout_seconds: 1 }, dispatch, ctx, refusal);
    expect(ctx.sent).toEqual([]);
    expect(result.structuredContent).toMatchObject({ ended: false, timed_out: true, events: [{ type: 'status', status: 'in_progress' }] });
  });

  it('answers a refusal, at the start or mid-way (a key revoked while following), with the API’s envelope', async () => {
    const notFound: ApiAnswer = { status: 404, headers: {}, body: { error: { code: 'call_not_found', message: 'No call with this id' } } };
    expect(await followCall({ id: 'x' }, scripted([notFound]).dispatch, context(), refusal)).toMatchObject({ isError: true });
    const revoked: ApiAnswer = { status: 401, headers: {}, body: { error: { code: 'invalid_api_key', message: 'revoked' } } };
    const midway = await followCall(
      { id: 'c1', timeout_seconds: 5 },
      scripted([ok(record('in_progress')), revoked]).dispatch,
      context(),
      refusal,
    );
    expect(midway).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('invalid_api_key') }] });
  });

  it('refuses a bad timeout or an unknown argument with the validation envelope, before reading the call', async () => {
    const { dispatch, requests } = scripted([ok(record('in_progress'))]);
    const result = await followCall({ id: 'c1', timeout_seconds: 901, colour: 'red' }, dispatch, context(), refusal);
    const body = JSON.parse((result.content[0] as { text: string }).text) as { error: { code: string; details: Array<{ field: string }> } };
    expect(body.error.code).toBe('validation_error');
    expect(body.error.details.map((d) => d.field).sort()).toEqual(['colour', 'timeout_seconds']);
    expect(requests).toEqual([]);
  });
});
