/**
 * Handing accepted messages to their send workflows (docs/decisions/sms.md "A message is accepted when it is
 * recorded" and "Accepted messages are sent in batches"). The message, its hold and its compliance record commit
 * first and the API answers; right after, off the request, messages accepted together are claimed for one batch
 * (`dispatch_batch_id`), the batch's workflow is started, and `dispatched_at` records the confirmed start. Whatever a
 * process did not get to (it died, Temporal was unreachable, its queue was full) the dispatch sweep starts within
 * seconds: a claimed batch again under its own workflow id, so no message is in two batches. A message still without
 * a workflow after MESSAGE_VALIDITY_MS is failed by the recovery sweeper, as a carrier's queue drops a message past its
 * validity period.
 */
import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import { workflowIds } from '../../../workflows/definitions/ids';
import type { SendMessageBatchInput, SendMessageInput } from '../../../workflows/definitions/messages';
import type { sendMessageBatchWorkflow } from '../../../workflows/messages';
import type { Config } from '../../platform/config';
import type { Db } from '../../platform/db/knex';
import type { Logger } from '../../platform/logger';
import { startResolvingAmbiguity } from '../../platform/temporal/starts';
import { workflowState } from '../../platform/temporal/workflowState';
import {
  claimMessagesForBatch,
  markMessagesDispatched,
  undispatchedMessages,
  unconfirmedBatchMessages,
  type MessageRow,
  type UndispatchedMessage,
} from './store';

/** How long a queued message may wait for its send workflow before it is not sent at all (a carrier's 10-hour validity). */
export const MESSAGE_VALIDITY_MS = 10 * 60 * 60_000;
/** Younger undispatched messages are left to the process that accepted them (its start normally confirms in milliseconds). */
export const DISPATCH_GRACE_MS = 15_000;
/**
 * The most messages one send workflow takes, and the most bytes their input may hold: 256 KiB stays below the 512 KiB
 * at which Temporal warns of a large payload (its limit is 2 MB), whatever the texts (400 texts of 1,600 emoji would
 * be 2.5 MB); 400 messages keep a batch's history to a few thousand events. Typical texts fill 400 in about 180 KiB.
 */
export const MESSAGE_BATCH_MAX = 400;
export const MESSAGE_BATCH_MAX_BYTES = 256 * 1024;
/** What a message's input takes beside its text's JSON: ids, numbers, names (about 250 bytes), rounded up. */
const INPUT_BYTES_BESIDE_TEXT = 400;

/** The bytes a message takes in its batch's input, at most. */
export function batchInputBytes(input: SendMessageInput): number {
  return INPUT_BYTES_BESIDE_TEXT + Buffer.byteLength(JSON.stringify(input.text));
}

/** How many of `bytes` (each message's, in order from `from`) the next batch takes: within both limits, at least one. */
export function nextBatchLength(
  bytes: readonly number[],
  from: number,
  limits: Pick<DispatchLimits, 'batchMax' | 'batchMaxBytes'>,
): number {
  let taken = 0;
  let total = 0;
  while (from + taken < bytes.length && taken < limits.batchMax) {
    total += bytes[from + taken]!;
    if (taken > 0 && total > limits.batchMaxBytes) break;
    taken += 1;
  }
  return taken;
}
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

/** What the send workflow is given for a stored outbound message and its price (already held, or zero). */
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

/** A stranded message's input, priced at what is held for it. */
function heldMessageInput(message: UndispatchedMessage): SendMessageInput {
  return sendMessageInput(message, message.held_cents);
}

interface DispatchOutcome {
  dispatched: number;
  unconfirmed: number;
}

/** Adds `outcome` into `total` (one dispatch's counts into a run's). */
function addOutcome(total: DispatchOutcome, outcome: DispatchOutcome): void {
  total.dispatched += outcome.dispatched;
  total.unconfirmed += outcome.unconfirmed;
}

/** Starts a claimed batch's workflow (once: its id is the batch's) and records a confirmed start. */
async function startBatch(deps: DispatchDeps, batch: SendMessageBatchInput): Promise<DispatchOutcome> {
  const outcome = await startResolvingAmbiguity<typeof sendMessageBatchWorkflow>(deps.temporal, 'sendMessageBatchWorkflow', {
    taskQueue: deps.config.taskQueue,
    workflowId: workflowIds.sendMessageBatch(batch.batchId),
    args: [batch],
  });
  if (outcome !== 'started') {
    deps.log.warn(
      { batch_id: batch.batchId, messages: batch.messages.length, outcome },
      'send workflow not started; the dispatch sweep retries',
    );
    return { dispatched: 0, unconfirmed: batch.messages.length };
  }
  const ids = batch.messages.map((message) => message.messageId);
  await markMessagesDispatched(deps.db, ids, deps.now());
  return { dispatched: ids.length, unconfirmed: 0 };
}

/** Claims the messages in batches within MESSAGE_BATCH_MAX and MESSAGE_BATCH_MAX_BYTES, starts each batch's workflow and records its start. */
export async function dispatchMessages(deps: DispatchDeps, inputs: readonly SendMessageInput[]): Promise<DispatchOutcome> {
  const total: DispatchOutcome = { dispatched: 0, unconfirmed: 0 };
  const bytes = inputs.map(batchInputBytes);
  for (let at = 0; at < inputs.length;) {
    const length = nextBatchLength(bytes, at, DEFAULT_DISPATCH_LIMITS);
    const chunk = inputs.slice(at, at + length);
    at += length;
    const batchId = crypto.randomUUID();
    // A message claimed already (the sweep took it while it waited here) is that batch's.
    const claimed = new Set(
      await claimMessagesForBatch(
        deps.db,
        batchId,
        chunk.map((input) => input.messageId),
      ),
    );
    const messages = chunk.filter((input) => claimed.has(input.messageId));
    if (messages.length === 0) continue;
    addOutcome(total, await startBatch(deps, { batchId, messages }));
  }
  return total;
}

/** Dispatches one message now, before returning (a process without a background dispatcher: the worker's replies). */
export async function dispatchMessage(deps: DispatchDeps, input: SendMessageInput): Promise<void> {
  await dispatchMessages(deps, [input]);
}

/** How the API's dispatcher batches: see MessageDispatcher. */
export interface DispatchLimits {
  batchMax: number;
  batchMaxBytes: number;
  lingerMs: number;
  concurrency: number;
  maxWaiting: number;
}

export const DEFAULT_DISPATCH_LIMITS: DispatchLimits = {
  batchMax: MESSAGE_BATCH_MAX,
  batchMaxBytes: MESSAGE_BATCH_MAX_BYTES,
  lingerMs: 250,
  concurrency: 2,
  maxWaiting: 20_000,
};

/**
 * The API's background hand-over. Messages wait up to `lingerMs` to share a batch (at once when a full batch waits:
 * MESSAGE_BATCH_MAX messages or MESSAGE_BATCH_MAX_BYTES); at most `concurrency` batches are dispatched at a time, the rest wait in order (up to `maxWaiting`; past it
 * the sweep takes them). Process memory holds only work the database already records as undispatched, so losing it
 * loses nothing.
 */
export class MessageDispatcher implements MessageHandOver {
  private readonly waiting: Array<{ input: SendMessageInput; since: number; bytes: number }> = [];
  private waitingBytes = 0;
  private inFlight = 0;
  private inFlightMessages = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly idle: Array<() => void> = [];

  private readonly limits: DispatchLimits;

  constructor(
    private readonly deps: DispatchDeps,
    limits: Partial<DispatchLimits> = {},
  ) {
    this.limits = { ...DEFAULT_DISPATCH_LIMITS, ...limits };
  }

  hand(input: SendMessageInput): void {
    if (this.waiting.length >= this.limits.maxWaiting) {
      this.deps.log.warn({ message_id: input.messageId }, 'dispatch queue full; the dispatch sweep starts this message');
      return;
    }
    const bytes = batchInputBytes(input);
    this.waiting.push({ input, since: performance.now(), bytes });
    this.waitingBytes += bytes;
    this.pump();
  }

  /** Messages handed over whose start is not recorded yet. */
  pending(): number {
    return this.waiting.length + this.inFlightMessages;
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
      const waited = performance.now() - this.waiting[0]!.since;
      const full = this.waiting.length >= this.limits.batchMax || this.waitingBytes >= this.limits.batchMaxBytes;
      if (!full && waited < this.limits.lingerMs) {
        this.wakeAfter(this.limits.lingerMs - waited);
        break;
      }
      const batch = this.waiting.splice(0, this.nextBatchLength());
      for (const entry of batch) this.waitingBytes -= entry.bytes;
      this.dispatchBatch(batch.map((entry) => entry.input));
    }
    this.settleIdle();
  }

  /** The waiting messages the next batch takes, within the limits (at most batchMax entries are read). */
  private nextBatchLength(): number {
    const head = this.waiting.slice(0, this.limits.batchMax).map((entry) => entry.bytes);
    return nextBatchLength(head, 0, this.limits);
  }

  private wakeAfter(ms: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, ms);
    this.timer.unref();
  }

  private dispatchBatch(inputs: SendMessageInput[]): void {
    this.inFlight += 1;
    this.inFlightMessages += inputs.length;
    void dispatchMessages(this.deps, inputs)
      .catch((err: unknown) =>
        this.deps.log.warn({ err, messages: inputs.length }, 'send workflow start failed; the dispatch sweep retries'),
      )
      .finally(() => {
        this.inFlight -= 1;
        this.inFlightMessages -= inputs.length;
        this.pump();
      });
  }

  private settleIdle(): void {
    if (this.pending() > 0) return;
    for (const resolve of this.idle.splice(0)) resolve();
  }
}

/**
 * The dispatch sweep (a Temporal schedule every 5 s): queued messages that have gone DISPATCH_GRACE_MS without a
 * confirmed start and are still within their validity, oldest first. A claimed batch is started again under its own
 * id with the messages claimed for it (found started if only the start's answer was lost); unclaimed messages are
 * claimed into new batches, except one whose own workflow (`message-send:<id>`, from before batches) exists.
 */
export async function dispatchStrandedMessages(deps: DispatchDeps): Promise<DispatchOutcome> {
  const at = deps.now();
  const stranded = await undispatchedMessages(deps.db, {
    createdBefore: new Date(at.getTime() - DISPATCH_GRACE_MS),
    createdAfter: new Date(at.getTime() - MESSAGE_VALIDITY_MS),
    limit: SWEEP_BATCH,
  });
  const total: DispatchOutcome = { dispatched: 0, unconfirmed: 0 };
  const batchIds = new Set(stranded.flatMap((message) => (message.dispatch_batch_id ? [message.dispatch_batch_id] : [])));
  for (const batchId of batchIds) {
    const messages = await unconfirmedBatchMessages(deps.db, batchId);
    addOutcome(total, await startBatch(deps, { batchId, messages: messages.map(heldMessageInput) }));
  }
  const unclaimed = [];
  const ownWorkflow: string[] = [];
  for (const message of stranded.filter((candidate) => !candidate.dispatch_batch_id)) {
    const state = await workflowState(deps.temporal, workflowIds.sendMessage(message.id));
    if (state === 'missing') unclaimed.push(message);
    else ownWorkflow.push(message.id);
  }
  await markMessagesDispatched(deps.db, ownWorkflow, deps.now());
  addOutcome(total, { dispatched: ownWorkflow.length, unconfirmed: 0 });
  addOutcome(total, await dispatchMessages(deps, unclaimed.map(heldMessageInput)));
  if (stranded.length > 0) deps.log.warn({ ...total, stranded: stranded.length }, 'dispatch sweep started stranded messages');
  return total;
}
