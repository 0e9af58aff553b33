import { TIMELINE_WORDS } from '../../api/portal/labels';
import { plainDeliveryError, SETTLING_MS, stillUnfolding, timelineOf, type CallTimelineFacts } from '../../src/domain/calls/timeline';
import type { CallDeliveryAttempt } from '../../src/domain/webhooks/store';

const T0 = Date.UTC(2026, 10, 28, 12, 0, 0);
const at = (seconds: number) => new Date(T0 + seconds * 1000);
const iso = (seconds: number) => at(seconds).toISOString();

type Call = CallTimelineFacts['call'];

function call(fields: Partial<Call> = {}): Call {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    line_id: '00000000-0000-4000-8000-000000000002',
    direction: 'outbound',
    from_number: '+14155550100',
    to_number: '+14155552671',
    status: 'completed',
    end_cause: 'caller_hangup',
    duration_sec: 20,
    charge_cents: 5,
    started_at: iso(3),
    ended_at: iso(23),
    recording_url: null,
    answered_by: null,
    transferred_to: null,
    transcript: [],
    system_prompt: null,
    begin_message: null,
    topic: null,
    max_duration_sec: null,
    metadata: {},
    tools: [],
    created_at: iso(0),
    ...fields,
  };
}

function attempt(fields: Partial<CallDeliveryAttempt>): CallDeliveryAttempt {
  return {
    id: '00000000-0000-4000-8000-0000000000aa',
    event_type: 'message',
    attempt: 1,
    status: 'success',
    http_status: 200,
    error_message: null,
    duration_ms: 42,
    created_at: at(5),
    ...fields,
  };
}

describe("a call's timeline (src/domain/calls/timeline.ts)", () => {
  it('tells a whole call in order: placed, answered, turns, barge-in, key press, tool call, deliveries, transfer, end, charge', () => {
    const entries = timelineOf(
      {
        call: call({
          answered_by: 'human',
          transferred_to: '+14155550199',
          end_cause: 'transferred',
          transcript: [
            { role: 'user', text: 'Hello?', timestamp: iso(4) },
            { role: 'assistant', text: 'Hi, this is', timestamp: iso(6), interrupted: true },
            { role: 'assistant', kind: 'dtmf', text: '1w#', timestamp: iso(8) },
            {
              role: 'assistant',
              kind: 'tool',
              text: 'book',
              timestamp: iso(9),
              tool: { id: 't1', name: 'book', arguments: {}, result: '{"ok":true}', error: null },
            },
          ],
        }),
        deliveries: [
          attempt({ id: 'd-started', event_type: 'call_started', created_at: at(3) }),
          attempt({ id: 'd-message', created_at: at(5) }),
          attempt({ id: 'd-transfer', event_type: 'call_transferred', created_at: at(10) }),
        ],
        charge: { amountCents: 5, description: 'Call to +14155552671 (20 s)', at: at(23) },
      },
      TIMELINE_WORDS,
    );
    expect(entries.map((entry) => [entry.kind, entry.title])).toEqual([
      ['placed', 'Placed: dialling +14155552671 from +14155550100'],
      ['answered', 'Answered (by a human)'],
      ['delivery', 'Agent webhook got the “Call started” event'],
      ['said', 'The caller said “Hello?”'],
      ['delivery', "Agent webhook got the “Caller's turn (message)” event"],
      ['interrupted', 'Barge-in: the caller talked over the agent and heard only “Hi, this is”'],
      ['key_press', 'The agent pressed 1w#'],
      ['tool_call', 'The agent called the tool book'],
      ['delivery', 'Agent webhook got the “Call transferred” event'],
      ['transfer', 'Transferred to +14155550199'],
      ['ended', 'Ended after 20 s: Transferred'],
      ['charge', 'Charged $0.05'],
    ]);
    expect(entries.find((entry) => entry.kind === 'delivery')).toMatchObject({
      deliveryId: 'd-started',
      detail: 'call_started event · attempt 1 · HTTP 200 · 42 ms',
    });
    expect(entries.some((entry) => entry.failed)).toBe(false);
  });

  it('flags a failed message delivery in plain words: what failed and that the caller heard silence', () => {
    const failed = timelineOf(
      {
        call: call({ transcript: [{ role: 'user', text: 'Anyone there?', timestamp: iso(4) }] }),
        deliveries: [
          attempt({
            status: 'failed',
            http_status: null,
            duration_ms: 3,
            error_message: 'connection_error: connect ECONNREFUSED 127.0.0.1:9',
          }),
        ],
        charge: null,
      },
      TIMELINE_WORDS,
    ).find((entry) => entry.kind === 'delivery');
    expect(failed).toMatchObject({
      kind: 'delivery',
      failed: true,
      title: 'Agent webhook failed: connection refused; the caller heard silence',
      detail: 'message event · attempt 1 · no HTTP answer · 3 ms · connection_error: connect ECONNREFUSED 127.0.0.1:9',
    });
  });

  it('says what a failed lifecycle event means: retried, given up after the last attempt, or never retried', () => {
    const titles = timelineOf(
      {
        call: call(),
        deliveries: [
          attempt({ event_type: 'call_ended', status: 'failed', http_status: 500, error_message: 'http_500', created_at: at(24) }),
          attempt({ event_type: 'call_ended', attempt: 8, status: 'failed', error_message: 'timeout after 5000 ms', created_at: at(25) }),
          attempt({ event_type: 'call_outgoing', status: 'failed', error_message: 'line_released', created_at: at(26) }),
          attempt({ event_type: 'call_started', status: 'pending', http_status: null, duration_ms: null, created_at: at(27) }),
        ],
        charge: null,
      },
      TIMELINE_WORDS,
    )
      .filter((entry) => entry.kind === 'delivery')
      .map((entry) => entry.title);
    expect(titles).toEqual([
      'Agent webhook failed: your server answered HTTP 500; Switchboard retries it',
      'Agent webhook failed: no answer within 5 s; given up after 8 attempts',
      'Status callback failed: the line was released; it is not retried',
      'Agent webhook: the “Call started” event being delivered',
    ]);
  });

  it('words every recorded delivery error, and keeps an unknown one as it is', () => {
    expect(plainDeliveryError('connection_error: read ECONNRESET')).toBe('the connection was cut');
    expect(plainDeliveryError('connection_error: getaddrinfo ENOTFOUND hooks.example')).toBe('the host name does not resolve');
    expect(plainDeliveryError('egress_refused: 10.0.0.5 is a private address')).toBe(
      'the address is refused by the egress policy (10.0.0.5 is a private address)',
    );
    expect(plainDeliveryError('missing_webhook_url')).toBe('the line has no webhook URL');
    expect(plainDeliveryError('attempt_lost')).toBe('the attempt was lost (a worker stopped during it)');
    expect(plainDeliveryError('response body over 65536 bytes; the request was aborted')).toBe(
      'response body over 65536 bytes; the request was aborted',
    );
  });

  it('tells an inbound call from its ringing, a ringing outbound call as ringing now, and a failed tool as a failure', () => {
    expect(
      timelineOf({ call: call({ direction: 'inbound', from_number: '+14155550123' }), deliveries: [], charge: null }, TIMELINE_WORDS)[0],
    ).toEqual({
      at: iso(0),
      kind: 'ringing',
      title: 'Ringing: +14155550123 called +14155552671',
    });
    const ringing = timelineOf(
      {
        call: call({ status: 'ringing', started_at: null, ended_at: null, duration_sec: null, end_cause: null }),
        deliveries: [],
        charge: null,
      },
      TIMELINE_WORDS,
    );
    expect(ringing.map((entry) => [entry.kind, entry.at])).toEqual([
      ['placed', iso(0)],
      ['ringing', null],
    ]);
    // With the carrier's ringing time recorded: ringing at that time, before the answer, ringing or not any more.
    for (const status of ['ringing', 'completed', 'busy']) {
      const answered = status === 'completed';
      const told = timelineOf(
        {
          call: call(answered ? {} : { status, started_at: null, ended_at: status === 'busy' ? iso(9) : null, end_cause: null }),
          ringingAt: iso(1),
          deliveries: [],
          charge: null,
        },
        TIMELINE_WORDS,
      );
      expect(told.slice(0, answered ? 3 : 2).map((entry) => [entry.kind, entry.at])).toEqual([
        ['placed', iso(0)],
        ['ringing', iso(1)],
        ...(answered ? [['answered', iso(3)]] : []),
      ]);
      expect(told.filter((entry) => entry.kind === 'ringing')).toHaveLength(1);
    }
    const tool = timelineOf(
      {
        call: call({
          transcript: [
            {
              role: 'assistant',
              kind: 'tool',
              text: 'book',
              timestamp: iso(9),
              tool: { id: 't1', name: 'book', arguments: {}, result: '', error: 'the endpoint answered HTTP 502' },
            },
          ],
        }),
        deliveries: [],
        charge: null,
      },
      TIMELINE_WORDS,
    ).find((entry) => entry.kind === 'tool_call');
    expect(tool).toMatchObject({ failed: true, title: "The agent's tool book failed: the endpoint answered HTTP 502" });
  });

  it('keeps unfolding while the call is active, a delivery is pending, or within the settling time after the end', () => {
    const ended = call();
    const facts = (fields: Partial<CallTimelineFacts>): CallTimelineFacts => ({ call: ended, deliveries: [], charge: null, ...fields });
    expect(stillUnfolding(facts({ call: call({ status: 'in_progress', ended_at: null }) }), at(100))).toBe(true);
    expect(stillUnfolding(facts({ call: call({ status: 'completed', ended_at: null }) }), at(100))).toBe(true);
    expect(stillUnfolding(facts({}), new Date(T0 + 23_000 + SETTLING_MS - 1))).toBe(true);
    expect(stillUnfolding(facts({}), new Date(T0 + 23_000 + SETTLING_MS))).toBe(false);
    expect(stillUnfolding(facts({ deliveries: [attempt({ status: 'pending' })] }), at(100))).toBe(true);
  });
});
