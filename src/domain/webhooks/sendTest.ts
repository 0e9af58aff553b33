import type { UseCaseDeps } from '../useCaseDeps';
import { findLine, type Tenant } from '../lines/store';
import { EVENT_POLICIES } from './events';
import { makeFirstAttempt, publishDepsOf, recordPublishedEvent } from './publish';
import { latestAttemptOf } from './store';

/** What is known of the test event's attempt: `finished` once it has run (else it is still pending). */
export interface TestAttempt {
  eventId: string;
  finished: boolean;
  /** The attempt's delivery row; undefined when the attempt has not started. */
  delivery: Record<string, unknown> | undefined;
}

export type SendTestOutcome = { ok: true; attempt: TestAttempt } | { ok: false; refused: 'not_found' | 'released' };

/**
 * Sends a signed `test` event to a line's webhook_url: one attempt, no retries, recorded in the
 * delivery log like any other, made by this process right after recording the event (no workflow).
 * The sender's key is null when an operator sends it from the portal.
 * L11: the wait is bounded (`webhookTestWaitMs`); past it what is known is returned and the attempt
 * finishes on its own.
 */
export async function sendTestEvent(
  deps: UseCaseDeps,
  sender: Tenant & { keyId: string | null },
  lineId: string,
): Promise<SendTestOutcome> {
  const line = await findLine(deps.db, sender, lineId);
  if (!line) return { ok: false, refused: 'not_found' };
  if (line.status === 'released') return { ok: false, refused: 'released' };
  const now = deps.now();
  const recorded = await recordPublishedEvent(deps.db, {
    workspaceId: sender.workspaceId,
    environment: sender.environment,
    lineId,
    type: 'test',
    target: EVENT_POLICIES.test.target,
    payload: { message: 'Test event from Switchboard', timestamp: now.getTime() },
    actorKeyId: sender.keyId,
    now,
  });
  // The one attempt is made here, right after the commit; the answer reports it. Its own budget
  // is 5 s, but the wait is bounded anyway (L11): past it, the attempt finishes on its own.
  const eventId = recorded.id;
  const attempt = makeFirstAttempt(publishDepsOf(deps), recorded);
  let timer: NodeJS.Timeout | undefined;
  const waited = await Promise.race([
    attempt.then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), deps.config.webhookTestWaitMs))),
  ]).finally(() => clearTimeout(timer));
  const delivery = await latestAttemptOf(deps.db, eventId);
  const finished = waited && delivery !== undefined && delivery.status !== 'pending';
  return { ok: true, attempt: { eventId, finished, delivery } };
}
