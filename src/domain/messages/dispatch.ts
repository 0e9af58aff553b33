/**
 * Handing an accepted message to its send workflow (docs/decisions/sms.md "A message is accepted when it is
 * recorded"). The message, its hold and its compliance record commit first and the API answers; the workflow is
 * started right after, off the request, and `dispatched_at` records the confirmed start. Whatever a process did not
 * get to (it died, Temporal was unreachable, its queue was full) the dispatch sweep starts within seconds, and a
 * message still without a workflow after MESSAGE_VALIDITY_MS is failed by the recovery sweeper, as a carrier's queue
 * drops a message past its validity period.
 */
import type { Client } from '@temporalio/client';
import { workflowIds } from '../../../workflows/definitions/ids';
import type { SendMessageInput } from '../../../workflows/definitions/messages';
import type { sendMessageWorkflow } from '../../../workflows/messages';
import type { Config } from '../../platform/config';
import type { Db } from '../../platform/db/knex';
import type { Logger } from '../../platform/logger';
import { startResolvingAmbiguity } from '../../platform/temporal/starts';
import { markMessagesDispatched, undispatchedMessages, type MessageRow } from './store';

/** How long a queued message may wait for its send workflow before it is not sent at all (a carrier's 10-hour validity). */
export const MESSAGE_VALIDITY_MS = 10 * 60 * 60_000;
/** Younger undispatched messages are left to the process that accepted them (its start normally confirms in milliseconds). */
export const DISPATCH_GRACE_MS = 15_000;
/** Per sweep, so one run stays short; the next sweep (5 s later) takes the rest. */
const SWEEP_BATCH = 200;

export interface DispatchDeps {
  db: Db;
  temporal: Client;
  config: Pick<Config, 'taskQueue'>;
  now: () => Date;
  log: Logger;
}

/** What a use case hands an accepted message to when its process dispatches in the background (the API's). */
export interface MessageHandOver {
  hand(input: SendMessageInput): void;
}

/** What `sendMessageWorkflow` is given for a stored outbound message and its price (already held, or zero). */
export function sendMessageInput(message: MessageRow, chargeCents: number): SendMessageInput {
  return {
    messageId: message.id,
    workspaceId: message.workspace_id,
    environment: message.environment,
    lineId: message.line_id,
    from: message.from_number,
    to: message.to_number,
    text: message.body,
    segments: message.segments,
    chargeCents,
  };
}

/** Starts the message's send workflow (once: its id is the message's); resolves to whether the start is confirmed. */
function startSendWorkflow(deps: Omit<DispatchDeps, 'db' | 'now'>, input: SendMessageInput): Promise<boolean> {
  return startResolvingAmbiguity<typeof sendMessageWorkflow>(deps.temporal, 'sendMessageWorkflow', {
    taskQueue: deps.config.taskQueue,
    workflowId: workflowIds.sendMessage(input.messageId),
    args: [input],
  }).then((outcome) => {
    if (outcome !== 'started')
      deps.log.warn({ message_id: input.messageId, outcome }, 'send workflow not started; the dispatch sweep retries');
    return outcome === 'started';
  });
}

/** Starts the send workflow now and records it; an unconfirmed start is left to the dispatch sweep. */
export async function dispatchMessage(deps: DispatchDeps, input: SendMessageInput): Promise<void> {
  if (await startSendWorkflow(deps, input)) await markMessagesDispatched(deps.db, [input.messageId], deps.now());
}

/**
 * The API's background hand-over: at most `concurrency` starts in flight, the rest waiting in order (up to
 * `maxWaiting`; past it the sweep takes them), confirmed starts recorded in batches. Process memory holds only work
 * the database already records as undispatched, so losing it loses nothing.
 */
export class MessageDispatcher implements MessageHandOver {
  private readonly waiting: SendMessageInput[] = [];
  private inFlight = 0;
  private readonly confirmed: string[] = [];
  private recording: Promise<void> | undefined;
  private recordingCount = 0;
  private readonly idle: Array<() => void> = [];

  constructor(
    private readonly deps: DispatchDeps,
    private readonly limits = { concurrency: 16, maxWaiting: 20_000 },
  ) {}

  hand(input: SendMessageInput): void {
    if (this.waiting.length >= this.limits.maxWaiting) {
      this.deps.log.warn({ message_id: input.messageId }, 'dispatch queue full; the dispatch sweep starts this message');
      return;
    }
    this.waiting.push(input);
    this.pump();
  }

  /** Messages handed over whose start is not recorded yet. */
  pending(): number {
    return this.waiting.length + this.inFlight + this.confirmed.length + this.recordingCount;
  }

  /** Waits until everything handed over is started and recorded, or `timeoutMs` passed (the sweep takes the rest). */
  async drain(timeoutMs: number): Promise<void> {
    if (this.pending() === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.idle.push(resolve)),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }

  private pump(): void {
    while (this.inFlight < this.limits.concurrency && this.waiting.length > 0) {
      const input = this.waiting.shift()!;
      this.inFlight += 1;
      void startSendWorkflow(this.deps, input)
        .then((started) => {
          if (started) this.confirmed.push(input.messageId);
        })
        .catch((err: unknown) =>
          this.deps.log.warn({ err, message_id: input.messageId }, 'send workflow start failed; the dispatch sweep retries'),
        )
        .finally(() => {
          this.inFlight -= 1;
          this.record();
          this.pump();
        });
    }
  }

  /** One UPDATE for every start confirmed since the last one finished. */
  private record(): void {
    if (this.recording) return;
    if (this.confirmed.length === 0) return this.settleIdle();
    const ids = this.confirmed.splice(0);
    this.recordingCount = ids.length;
    this.recording = markMessagesDispatched(this.deps.db, ids, this.deps.now())
      .catch((err: unknown) => this.deps.log.warn({ err, messages: ids.length }, 'dispatch not recorded; the dispatch sweep records it'))
      .finally(() => {
        this.recording = undefined;
        this.recordingCount = 0;
        this.record();
      });
  }

  private settleIdle(): void {
    if (this.pending() > 0) return;
    for (const resolve of this.idle.splice(0)) resolve();
  }
}

/**
 * The dispatch sweep (a Temporal schedule every 5 s): starts the send workflow of every queued message that has gone
 * DISPATCH_GRACE_MS without a confirmed start and is still within its validity, oldest first. A message whose workflow
 * already started (the start's answer was lost) is found started and only recorded.
 */
export async function dispatchStrandedMessages(deps: DispatchDeps): Promise<{ dispatched: number; unconfirmed: number }> {
  const at = deps.now();
  const stranded = await undispatchedMessages(deps.db, {
    createdBefore: new Date(at.getTime() - DISPATCH_GRACE_MS),
    createdAfter: new Date(at.getTime() - MESSAGE_VALIDITY_MS),
    limit: SWEEP_BATCH,
  });
  const started: string[] = [];
  for (const message of stranded) {
    if (await startSendWorkflow(deps, sendMessageInput(message, message.held_cents))) started.push(message.id);
  }
  await markMessagesDispatched(deps.db, started, deps.now());
  if (stranded.length > 0)
    deps.log.warn({ dispatched: started.length, stranded: stranded.length }, 'dispatch sweep started stranded messages');
  return { dispatched: started.length, unconfirmed: stranded.length - started.length };
}
