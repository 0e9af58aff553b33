import crypto from 'node:crypto';
import type { ErrorDetail } from '../../api/errors';
import { bucketFor } from '../../src/domain/limits/policies';
import type { CallStatus } from '../../src/domain/calls/rules';
import type { LineMode, LineStatus } from '../../src/domain/lines/rules';
import type { MessageStatus } from '../../src/domain/messages/rules';
import { eventually, untilLineActive, webhookLine, type Harness, type Tenant, type TestResponse } from './harness';
import type { SpeakResult, TransferResult, WaitResult } from '../../workflows/definitions/callControl';
import type { RecordingStorage } from '../../src/domain/recordings/rules';

/**
 * What a customer does through the public API, typed: lines, calls and messages. Tests tell their
 * story with these instead of URLs; what a test asserts stays in the test.
 */

/** An API answer. `body` is `T` when the status is a success and `{error}` when it is a refusal: read the one the asserted status says. */
export type Answer<T> = Omit<TestResponse, 'body'> & { body: T & ApiErrorBody };

export interface ApiErrorBody {
  error: { code: string; message: string; details?: ErrorDetail[] };
}

/** A line on the wire (`{line}`); `phone_number` is set once it is active, which `lines.create` waits for. */
export interface Line {
  id: string;
  phone_number: string;
  name: string;
  mode: LineMode;
  status: LineStatus;
  webhook_url: string | null;
  audio_handler_url: string | null;
  status_callback_url: string | null;
  environment: 'test' | 'live';
  grace_ends_at: string | null;
  tools: Array<Record<string, unknown>>;
}

export interface TranscriptEntry {
  role: 'user' | 'assistant';
  text: string;
  timestamp: string;
  /** A reply the caller talked over: `text` is what they heard. */
  interrupted?: true;
  /** The agent's key presses (`text` is the digits), or a tool the model called (`text` is its name). */
  kind?: 'dtmf' | 'tool';
  tool?: { id: string; name: string; arguments: Record<string, unknown>; result: string; error: string | null };
}

/** A call on the wire (`{call}`). */
export interface Call {
  id: string;
  line_id: string;
  direction: 'inbound' | 'outbound';
  from_number: string;
  to_number: string;
  status: CallStatus;
  end_cause: string | null;
  duration_sec: number | null;
  charge_cents: number | null;
  started_at: string | null;
  ended_at: string | null;
  recording_url: string | null;
  answered_by: 'human' | 'machine' | 'unknown' | null;
  transferred_to: string | null;
  transcript: TranscriptEntry[] | null;
  system_prompt: string | null;
  begin_message: string | null;
  topic: string | null;
  max_duration_sec: number | null;
  metadata: Record<string, string>;
  tools: Array<Record<string, unknown>>;
  created_at: string;
  /** `GET /calls/{id}` only: where the copy into the operator's store stands (src/domain/recordings/rules.ts `RecordingStorage`). */
  recording_storage?: RecordingStorage;
}

/** A message on the wire: `POST /messages` answers it unwrapped; conversation pages list it. */
export interface Message {
  id: string;
  line_id: string;
  direction: 'inbound' | 'outbound';
  from: string;
  to: string;
  text: string;
  status: MessageStatus;
  segments: number;
  charge_cents: number | null;
  error_code: string | null;
  timestamp: string;
  created_at: string;
}

export interface Conversation {
  line_id: string;
  phone_number: string;
  line_phone_number: string;
  message_count: number;
  last_message_at: string;
  last_message_text: string;
  last_message_direction: 'inbound' | 'outbound';
}

export interface ConversationPage {
  messages: Message[];
  has_more: boolean;
  next_cursor: string | null;
}

/** One webhook delivery attempt as the customer sees it. */
export interface Delivery {
  id: string;
  event_id: string;
  line_id: string;
  call_id: string | null;
  event_type: string;
  url: string | null;
  status: string;
  http_status: number | null;
  error_message: string | null;
  attempt_count: number;
  created_at: string;
}

/** The stored call row, for what the API does not show (the actor key, the carrier's id). */
export interface CallRow {
  id: string;
  status: CallStatus;
  actor_key_id: string | null;
  carrier_call_id: string | null;
  from_number: string;
  to_number: string;
}

export interface CustomerOptions {
  /** The key this customer acts with unless a call passes one (default: the tenant's test key). */
  key?: () => string;
  /** The fields every new line starts from (default: a webhook line, `webhookLine()`); a test's fields override them. */
  line?: () => Record<string, unknown>;
  /** How long `calls.untilStatus` waits by default. */
  untilMs?: number;
}

/** The conversation read's route, as its rate-limit bucket names it (`reads` counts each route apart). */
const CONVERSATION_READ = 'GET /api/v1/conversations/{lineId}/{phoneNumber}';

/** The number calls go to unless a test says otherwise: one the carrier simulator answers. */
export const CALLEE = '+14155552671';

/** A hosted line the carrier suites call (a restaurant's desk answering in French): the body of its creation. */
export const HOSTED_DESK = {
  mode: 'hosted',
  system_prompt: 'You are the booking desk of Chez Marie.',
  voice: 'french-louis',
  begin_message: 'Bonjour, Chez Marie.',
} as const;

/**
 * A suite's harness and tenant, read each time a helper runs (suites set them in `beforeAll` and
 * `beforeEach`): the suite's context object, or a function answering them.
 */
export type CustomerContext = { readonly h: Harness; readonly tenant: Tenant } | (() => { h: Harness; tenant: Tenant });

/** A tenant as a customer, acting with its test key unless a call passes another `key`. */
export function customer(context: CustomerContext, options: CustomerOptions = {}) {
  const ctx = {
    get h() {
      return typeof context === 'function' ? context().h : context.h;
    },
    get tenant() {
      return typeof context === 'function' ? context().tenant : context.tenant;
    },
  };
  const untilMs = options.untilMs ?? 20_000;
  const lineDefaults = options.line ?? (() => webhookLine());
  const keyOr = (key?: string) => key ?? options.key?.() ?? ctx.tenant.keys.test;
  const request = <T>(method: string, path: string, key?: string, body?: unknown, headers?: Record<string, string>) =>
    ctx.h.request(method, path, { key: keyOr(key), body, headers }) as Promise<Answer<T>>;
  const expectStatus = (res: TestResponse, status: number, what: string) => {
    if (res.status !== status) throw new Error(`${what} answered ${res.status}, not ${status}: ${res.text}`);
  };

  const lines = {
    /** `POST /api/v1/lines` with the defaults and `fields`, as sent. */
    post: (fields: Record<string, unknown> = {}, key?: string) =>
      request<{ line: Line; webhook_secret: string }>('POST', '/api/v1/lines', key, { ...lineDefaults(), ...fields }),
    /** A new line, once it is active (201 expected), with its signing secret (shown only at creation). */
    async createWithSecret(fields: Record<string, unknown> = {}, key?: string): Promise<{ line: Line; webhookSecret: string }> {
      const res = await lines.post(fields, key);
      expectStatus(res, 201, 'POST /api/v1/lines');
      const line = res.body.line.status === 'active' ? res.body.line : await lines.untilActive(res.body.line.id, key);
      return { line, webhookSecret: res.body.webhook_secret };
    },
    /** A new line, once it is active (201 expected). */
    create: async (fields: Record<string, unknown> = {}, key?: string): Promise<Line> => (await lines.createWithSecret(fields, key)).line,
    get: async (id: string, key?: string): Promise<Line> => (await request<{ line: Line }>('GET', `/api/v1/lines/${id}`, key)).body.line,
    /** Waits (45 s at most, see `untilLineActive`) until the line is active. */
    untilActive: (id: string, key?: string): Promise<Line> => untilLineActive(ctx.h.temporal, id, () => lines.get(id, key)),
    /** Waits (30 s at most) until the line is released. */
    untilReleased: (id: string, key?: string): Promise<Line> =>
      eventually(
        async () => {
          const line = await lines.get(id, key);
          return line.status === 'released' ? line : undefined;
        },
        30_000,
        `line ${id} to be released`,
      ),
    update: (id: string, fields: Record<string, unknown>, key?: string) =>
      request<{ line: Line }>('PATCH', `/api/v1/lines/${id}`, key, fields),
    release: (id: string, key?: string) => request<{ line: Line }>('DELETE', `/api/v1/lines/${id}`, key),
    /** The line is free again: a new call on it is accepted (201), then hung up. */
    async expectFree(lineId: string): Promise<void> {
      const next = await calls.place(lineId, '+14155552699');
      expect(next.status).toBe(201);
      await calls.hangUp(next.body.call.id);
    },
  };

  const calls = {
    place: (lineId: string, to = CALLEE, key?: string) =>
      request<{ call: Call }>('POST', '/api/v1/calls', key, { line_id: lineId, to_number: to }),
    /** `POST /api/v1/calls` with `fields` as sent (variables, metadata, machine_detection...). */
    placeWith: (fields: Record<string, unknown>, key?: string) => request<{ call: Call }>('POST', '/api/v1/calls', key, fields),
    /** `POST /api/v1/calls/conversation` with `fields` (line_id, to_number, topic, max_duration_seconds). */
    placeConversation: (fields: Record<string, unknown>, key?: string) =>
      request<{ call: Call }>('POST', '/api/v1/calls/conversation', key, fields),
    /** Places a call that must be accepted (201); its record as placed. */
    async dial(lineId: string, to = CALLEE, key?: string): Promise<Call> {
      const res = await calls.place(lineId, to, key);
      expectStatus(res, 201, 'POST /api/v1/calls');
      return res.body.call;
    },
    get: async (id: string, key?: string): Promise<Call> => (await request<{ call: Call }>('GET', `/api/v1/calls/${id}`, key)).body.call,
    /** `GET /api/v1/calls/{id}` as answered (for tests that assert the status, e.g. a 404 across tenants). */
    fetch: (id: string, key?: string) => request<{ call: Call }>('GET', `/api/v1/calls/${id}`, key),
    list: (query = '', key?: string) => request<{ calls: Call[]; total: number }>('GET', `/api/v1/calls${query}`, key),
    untilStatus: (id: string, statuses: CallStatus[], timeoutMs = untilMs): Promise<Call> =>
      eventually(
        async () => {
          const call = await calls.get(id);
          return statuses.includes(call.status) ? call : undefined;
        },
        timeoutMs,
        `call ${id} to reach ${statuses.join('/')}`,
      ),
    /** Waits for the call's transcript to hold `entries` entries. */
    untilTranscript: (id: string, entries: number): Promise<Call> =>
      eventually(async () => {
        const call = await calls.get(id);
        return call.transcript?.length === entries ? call : undefined;
      }),
    hangUp: (id: string, key?: string) => request<{ call: Call }>('POST', `/api/v1/calls/${id}/hangup`, key),
    speak: (id: string, body: Record<string, unknown>, key?: string) =>
      request<SpeakResult>('POST', `/api/v1/calls/${id}/speak`, key, body),
    wait: (id: string, body: Record<string, unknown>, key?: string) => request<WaitResult>('POST', `/api/v1/calls/${id}/wait`, key, body),
    press: (id: string, body: Record<string, unknown>, key?: string) =>
      request<{ call_id: string; pressed: boolean; digits: string }>('POST', `/api/v1/calls/${id}/press`, key, body),
    transfer: (id: string, body: Record<string, unknown>, key?: string) =>
      request<TransferResult>('POST', `/api/v1/calls/${id}/transfer`, key, body),
    /** The stored row of the line's inbound call, once the carrier's announcement has created it. */
    untilInboundRow: (lineId: string): Promise<CallRow> =>
      eventually(
        async () => (await ctx.h.db('calls').where({ line_id: lineId, direction: 'inbound' }).first()) ?? undefined,
        20_000,
        'the inbound call',
      ),
  };

  const messages = {
    send: (body: Record<string, unknown>, options: { key?: string; headers?: Record<string, string> } = {}) =>
      request<Message>('POST', '/api/v1/messages', options.key, body, options.headers),
    conversation: (lineId: string, number: string, query = '', key?: string) =>
      request<ConversationPage>('GET', `/api/v1/conversations/${lineId}/${encodeURIComponent(number)}${query}`, key),
    conversations: (query = '', key?: string) =>
      request<{ conversations: Conversation[]; has_more: boolean; next_cursor: string | null }>(
        'GET',
        `/api/v1/conversations${query}`,
        key,
      ),
    /**
     * A message of the conversation between `lineId` and `number` (the API has no single-message read). Waits poll it,
     * and the conversation read allows 60 an hour (`reads`): a wait is an observer, not a client the limit is about, so
     * a 429 empties the tenant's windows of that read and asks again (the limit itself: rateLimits.test.ts). Anything else but
     * 200 fails, saying what the API answered.
     */
    get: async (lineId: string, number: string, id: string): Promise<Message | undefined> => {
      let page = await messages.conversation(lineId, number, '?limit=100');
      if (page.status === 429) {
        const who = { workspaceId: ctx.tenant.workspaceId, userId: '', keyId: '' };
        const buckets = ['test', 'live'].map((environment) => bucketFor('reads', { ...who, environment }, CONVERSATION_READ));
        await ctx.h.db('rate_limit_windows').whereIn('bucket', buckets).delete();
        page = await messages.conversation(lineId, number, '?limit=100');
      }
      expectStatus(page, 200, `GET /api/v1/conversations/${lineId}/${number}`);
      return page.body.messages.find((m) => m.id === id);
    },
    untilStatus: (lineId: string, number: string, id: string, status: MessageStatus, timeoutMs = 20_000): Promise<Message> =>
      eventually(
        async () => {
          const message = await messages.get(lineId, number, id);
          return message?.status === status ? message : undefined;
        },
        timeoutMs,
        `message ${id} to be ${status}`,
      ),
  };

  const webhooks = {
    /** `GET /api/v1/webhooks/deliveries` with `query` (e.g. `?event_type=message&status=failed`). */
    deliveries: (query = '', key?: string) =>
      request<{ deliveries: Delivery[]; total: number }>('GET', `/api/v1/webhooks/deliveries${query}`, key),
  };

  const consent = {
    /** Records `type` consent for `number` on the line (`source` only when given). */
    record: (lineId: string, number: string, type: 'explicit_outbound' | 'implied_inbound', source?: string) =>
      request<{ consent: { id: string } }>('POST', '/api/v1/consent', undefined, {
        line_id: lineId,
        phone_number: number,
        consent_type: type,
        ...(source ? { source } : {}),
      }),
  };

  const settings = {
    update: (fields: Record<string, unknown>, key?: string) => request<Record<string, unknown>>('PATCH', '/api/v1/settings', key, fields),
  };

  const agentKeys = {
    /** An agent key made with the test service key (`POST /v1/keys`, a fresh Idempotency-Key). */
    create: (fields: Record<string, unknown>) =>
      request<{ key: AgentKey }>('POST', '/v1/keys', ctx.tenant.keys.serviceTest, fields, { 'idempotency-key': crypto.randomUUID() }),
  };

  return { lines, calls, messages, webhooks, consent, settings, agentKeys };
}

/** An agent key as `POST /v1/keys` answers it: the plaintext is shown only then. */
export interface AgentKey {
  id: string;
  plaintext_key: string;
  permissions: string;
}

export type Customer = ReturnType<typeof customer>;
