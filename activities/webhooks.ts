import crypto from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../src/db/knex';
import { currentSecret } from '../src/lines/secrets';
import { signatureHeaders } from '../src/webhooks/signature';
import { EVENT_POLICIES, parseRetryAfter, redactResponseBody, type EventType } from '../src/webhooks/events';

export interface WebhookActivityDeps {
  db: Db;
  secretsKey: () => Buffer;
  now: () => Date;
}

export interface AttemptOutcome {
  deliveryId: string;
  delivered: boolean;
  /** False when retrying cannot help (the line is gone). */
  retryable: boolean;
  httpStatus: number | null;
  retryAfterMs?: number;
  /** For `message` events: the `text` the receiver answered with, to be spoken. */
  replyText?: string;
}

/** The reply a receiver gives a `message` event: `{text}` (an empty or missing text is silence). */
export function replyTextOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { text?: unknown };
    return typeof parsed.text === 'string' && parsed.text.trim() !== '' ? parsed.text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One delivery attempt of one event: sign with the line's current secret at attempt time,
 * POST with the event type's timeout, and log the attempt as a row whatever happens.
 */
export function createWebhookActivities({ db, secretsKey, now }: WebhookActivityDeps) {
  return {
    async attemptDelivery(eventId: string, attempt: number): Promise<AttemptOutcome> {
      const event = await db('webhook_events').where({ id: eventId }).first();
      if (!event) throw ApplicationFailure.nonRetryable(`event ${eventId} does not exist`, 'EventMissing');
      const line = await db('lines').where({ id: event.line_id }).first('status', 'webhook_url', 'status_callback_url');
      const policy = EVENT_POLICIES[event.event_type as EventType];
      // A line without its own webhook_url falls back to the workspace's default_webhook_url.
      const fallback = policy.target === 'webhook' && line && !line.webhook_url
        ? (await db('billing_accounts').where({ workspace_id: event.workspace_id, environment: event.environment }).first('default_webhook_url'))?.default_webhook_url
        : null;
      const url: string | null = policy.target === 'webhook' ? (line?.webhook_url ?? fallback ?? null) : line?.status_callback_url;
      const body = JSON.stringify({ ...event.payload, event: event.event_type, event_id: event.id, line_id: event.line_id });
      const deliveryId = crypto.randomUUID();
      const started = now();
      const row = {
        id: deliveryId,
        event_id: event.id,
        workspace_id: event.workspace_id,
        environment: event.environment,
        line_id: event.line_id,
        call_id: event.call_id,
        event_type: event.event_type,
        url,
        attempt,
        request_body: body,
        created_at: started,
      };
      const fail = async (error: string, retryable: boolean): Promise<AttemptOutcome> => {
        await db('webhook_deliveries').insert({ ...row, status: 'failed', error_message: error, duration_ms: 0, completed_at: started }).onConflict(['event_id', 'attempt']).ignore();
        return { deliveryId, delivered: false, retryable, httpStatus: null };
      };
      if (!line || line.status === 'released') return fail('line_released', false);
      if (!url) return fail(policy.target === 'webhook' ? 'missing_webhook_url' : 'missing_status_callback_url', true);
      const secret = await currentSecret(db, secretsKey(), event.line_id);
      if (!secret) return fail('missing_webhook_secret', true);

      // A retried activity reuses its attempt number: replace the pending row of the lost try.
      await db('webhook_deliveries').where({ event_id: event.id, attempt }).del();
      await db('webhook_deliveries').insert({ ...row, status: 'pending' });
      const headers = { 'content-type': 'application/json', 'user-agent': 'Switchboard-Webhooks/1', ...signatureHeaders({ secret, deliveryId, rawBody: body, attempt, now: started }) };
      let httpStatus: number | null = null;
      let responseText: string | null = null;
      let error: string | null = null;
      let retryAfterMs: number | undefined;
      let replyText: string | undefined;
      try {
        const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(policy.timeoutMs) });
        httpStatus = response.status;
        const fullText = await response.text();
        if (event.event_type === 'message' && response.ok) replyText = replyTextOf(fullText);
        responseText = redactResponseBody(fullText);
        retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), now());
        if (!response.ok) error = `http_${response.status}`;
      } catch (err) {
        const name = (err as Error).name;
        error = name === 'TimeoutError' || name === 'AbortError' ? `timeout after ${policy.timeoutMs} ms` : `connection_error: ${(err as Error).message}`;
      }
      const delivered = error === null;
      await db('webhook_deliveries')
        .where({ id: deliveryId })
        .update({ status: delivered ? 'success' : 'failed', http_status: httpStatus, error_message: error, response_body: responseText, duration_ms: now().getTime() - started.getTime(), completed_at: now() });
      return { deliveryId, delivered, retryable: true, httpStatus, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}), ...(replyText !== undefined ? { replyText } : {}) };
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
